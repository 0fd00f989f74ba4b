/* Store: round trips, the version chain and its queries, migrations from an old schema,
 * interrupted episodes, two handles on one file (WAL), crash consistency with a child
 * process that dies mid-transaction, and allocation failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/hk.h"
#include "core/i18n.h"
#include "store/store.h"
#include "said_zh.h"

static char tmpdir[256];

static int setup_dir(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/hk_test_store_XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    return 0;
}

static int teardown_dir(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void db_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmpdir, name);
}

/* Runs one statement on a raw connection (for setting up old or broken databases). */
static void raw_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
    if (rc != SQLITE_OK)
        fail_msg("%s: %s", sql, err ? err : "?");
    sqlite3_close(db);
}

static long long raw_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    /* A writer may hold the database (crash_mid_transaction): wait for it as the store does. */
    sqlite3_busy_timeout(db, 10000);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static char *raw_text(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    /* A writer may hold the database (crash_mid_transaction): wait for it as the store does. */
    sqlite3_busy_timeout(db, 10000);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    char *v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void hash_vectors(void **state)
{
    char h[STORE_HASH_HEX];
    store_content_hash("", 0, h);
    assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    store_content_hash("abc", 3, h);
    assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    store_content_hash(two, strlen(two), h);
    assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);
    store_content_hash(million, 1000000, h);
    free(million);
    assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* A small fixture: kernel, episode, baseline v0 and two verified children. */
struct fixture {
    int64_t kernel, ep, v0, v1, v2, v3;
};

static void add_meas(store *s, int64_t vid, int64_t ep, enum store_measure_kind kind, double med,
                     double p10, double p90)
{
    store_measurement m = {.version_id = vid, .episode_id = ep, .kind = kind,
                           .median_ms = med, .p10_ms = p10, .p90_ms = p90, .spread = NAN,
                           .reps = 50, .bytes_per_s = 1e12 / med, .flop_per_s = NAN,
                           .roofline_pct = NAN, .size_key = "n=1048576",
                           .raw_json = "{\"samples\":[1,2,3]}"};
    int64_t id;
    assert_int_equal(store_measurement_add(s, &m, &id), HK_OK);
    assert_true(id > 0);
}

static void build_fixture(store *s, struct fixture *f, const char *arch)
{
    assert_int_equal(store_kernel_upsert(s, "/src/rope.cu", "rope_forward", "h0", &f->kernel),
                     HK_OK);
    store_episode_new en = {.kernel_id = f->kernel, .target = "nvidia:sm_90",
                            .backend = "nvidia", .arch = arch, .engine = "builtin",
                            .budget_json = "{\"candidates\":20}", .pid = getpid()};
    assert_int_equal(store_episode_create(s, &en, &f->ep), HK_OK);
    store_version_new vn = {.episode_id = f->ep, .source = "__global__ void k(){}",
                            .status = STORE_V_VERIFIED, .produced_by = "baseline"};
    assert_int_equal(store_version_add(s, &vn, &f->v0), HK_OK);
    assert_int_equal(store_episode_set_baseline(s, f->ep, f->v0), HK_OK);
    vn.parent_id = f->v0;
    vn.source = "__global__ void __launch_bounds__(256) k(){}";
    vn.launch_json = "{\"block\":256}";
    vn.produced_by = "builtin:launch_bounds";
    assert_int_equal(store_version_add(s, &vn, &f->v1), HK_OK);
    vn.parent_id = f->v1;
    vn.source = "__global__ void k(){ /* races */ }";
    vn.status = STORE_V_CANDIDATE;
    assert_int_equal(store_version_add(s, &vn, &f->v2), HK_OK);
    assert_int_equal(store_version_set_status(s, f->v2, STORE_V_REJECTED, "wrong answer",
                                              "max abs err 3.5 at index 17"),
                     HK_OK);
    vn.source = "__global__ void k(){ float4 }";
    vn.status = STORE_V_VERIFIED;
    assert_int_equal(store_version_add(s, &vn, &f->v3), HK_OK);
    assert_int_equal(store_version_set_accuracy(s, f->v3, 1e-6, 2e-7), HK_OK);
    add_meas(s, f->v0, f->ep, STORE_M_BASELINE, 2.0, 1.9, 2.2);
    add_meas(s, f->v0, f->ep, STORE_M_VERIFY, 2.1, 2.0, 2.2);
    add_meas(s, f->v1, f->ep, STORE_M_CANDIDATE, 1.5, 1.4, 1.6);
    add_meas(s, f->v3, f->ep, STORE_M_CANDIDATE, 0.9, 0.85, 0.95);
    add_meas(s, f->v3, f->ep, STORE_M_VERIFY, 1.0, 0.95, 1.05);
    assert_int_equal(store_episode_set_best(s, f->ep, f->v3), HK_OK);
}

static void round_trip(void **state)
{
    char path[300];
    db_path(path, sizeof path, "rt.db");
    store *s = NULL;
    assert_int_equal(store_open(path, &s), HK_OK);
    int ver = 0;
    assert_int_equal(store_schema_version(s, &ver), HK_OK);
    assert_int_equal(ver, STORE_SCHEMA_VERSION);
    char *mode = raw_text(path, "PRAGMA journal_mode");
    assert_string_equal(mode, "wal");
    free(mode);

    struct fixture f;
    build_fixture(s, &f, "sm_90");
    /* Upsert is idempotent and updates the hash. */
    int64_t k2;
    assert_int_equal(store_kernel_upsert(s, "/src/rope.cu", "rope_forward", "h1", &k2), HK_OK);
    assert_int_equal(k2, f.kernel);
    store_kernel k;
    assert_int_equal(store_kernel_get(s, f.kernel, &k), HK_OK);
    assert_string_equal(k.content_hash, "h1");
    store_kernel_clear(&k);

    store_episode e;
    assert_int_equal(store_episode_get(s, f.ep, &e), HK_OK);
    assert_string_equal(e.name, "rope_forward sm_90"); /* derived */
    assert_string_equal(e.kernel, "rope_forward");
    assert_string_equal(e.file, "/src/rope.cu");
    assert_string_equal(e.budget_json, "{\"candidates\":20}");
    assert_int_equal(e.status, STORE_EP_RUNNING);
    assert_int_equal(e.ended_ms, 0);
    assert_int_equal(e.best_version_id, f.v3);
    assert_int_equal(e.baseline_version_id, f.v0);
    assert_int_equal(e.pid, getpid());
    assert_null(e.device);
    store_episode_clear(&e);

    assert_int_equal(store_episode_set_device(s, f.ep, "NVIDIA H200"), HK_OK);
    assert_int_equal(store_episode_set_info(s, f.ep, "{\"isolation\":\"bwrap\"}"), HK_OK);
    assert_int_equal(store_episode_set_reports(s, f.ep, "/r/1.json", NULL, "/r/1.html"), HK_OK);
    assert_int_equal(store_event_add(s, f.ep, "init", "toolchain ok", NULL, NULL), HK_OK);
    assert_int_equal(store_event_add(s, f.ep, "baseline", "measuring", "{\"reps\":50}", NULL),
                     HK_OK);
    assert_int_equal(store_event_add(s, f.ep, "baseline", "2.0 ms", NULL, NULL), HK_OK);
    assert_int_equal(store_event_add(s, f.ep, "optimize", "20 candidates", NULL, NULL), HK_OK);
    assert_int_equal(store_episode_finish(s, f.ep, STORE_EP_COMPLETED, NULL), HK_OK);
    /* A second ender is refused, not silently applied. */
    assert_int_equal(store_episode_finish(s, f.ep, STORE_EP_STOPPED, "cancel"), HK_ESTATE);
    assert_int_equal(store_episode_finish(s, 9999, STORE_EP_STOPPED, NULL), HK_ENOENT);

    assert_int_equal(store_episode_get(s, f.ep, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_COMPLETED);
    assert_true(e.ended_ms >= e.started_ms);
    assert_string_equal(e.device, "NVIDIA H200");
    assert_string_equal(e.report_json, "/r/1.json");
    assert_null(e.report_md);
    assert_string_equal(e.report_html, "/r/1.html");
    assert_string_equal(e.info_json, "{\"isolation\":\"bwrap\"}");
    int64_t ended = e.ended_ms;
    store_episode_clear(&e);

    store_stage *stages;
    size_t ns;
    assert_int_equal(store_episode_stages(s, f.ep, &stages, &ns), HK_OK);
    assert_int_equal(ns, 3);
    assert_string_equal(stages[0].stage, "init");
    assert_string_equal(stages[1].stage, "baseline");
    assert_int_equal(stages[1].n_events, 2);
    assert_string_equal(stages[1].last_message, "2.0 ms");
    assert_int_equal(stages[0].end_ms, stages[1].start_ms);
    assert_int_equal(stages[2].end_ms, ended);
    store_stages_free(stages, ns);

    store_version v;
    assert_int_equal(store_version_get(s, f.v2, &v), HK_OK);
    assert_int_equal(v.number, 2);
    assert_int_equal(v.parent_id, f.v1);
    assert_int_equal(v.status, STORE_V_REJECTED);
    assert_string_equal(v.reject_reason, "wrong answer");
    assert_string_equal(v.source, "__global__ void k(){ /* races */ }");
    char h[STORE_HASH_HEX];
    store_content_hash(v.source, strlen(v.source), h);
    assert_string_equal(v.content_hash, h);
    int64_t found;
    assert_int_equal(store_version_find_by_hash(s, f.kernel, h, &found), HK_OK);
    assert_int_equal(found, f.v2);
    store_version_clear(&v);
    assert_int_equal(store_version_find_by_hash(s, f.kernel, "nope", &found), HK_ENOENT);

    store_measurement *ms;
    size_t nm;
    assert_int_equal(store_measurement_list(s, f.v0, f.ep, &ms, &nm), HK_OK);
    assert_int_equal(nm, 2);
    assert_int_equal(ms[0].kind, STORE_M_BASELINE);
    assert_true(fabs(ms[0].spread - 0.15) < 1e-9); /* computed from p10/p90 */
    assert_true(isnan(ms[0].flop_per_s));
    assert_string_equal(ms[0].size_key, "n=1048576");
    store_measurements_free(ms, nm);

    assert_int_equal(store_evidence_add(s, f.v0, f.ep, "ptxas", "{\"registers\":32}", NULL),
                     HK_OK);
    store_evidence *ev;
    size_t nev;
    assert_int_equal(store_evidence_list(s, f.v0, 0, &ev, &nev), HK_OK);
    assert_int_equal(nev, 1);
    assert_string_equal(ev[0].kind, "ptxas");
    store_evidences_free(ev, nev);

    store_device d;
    assert_int_equal(store_device_get(s, "NVIDIA H200", &d), HK_ENOENT);
    assert_int_equal(store_device_put(s, "NVIDIA H200", "9.0", "{\"dram_bytes_per_s\":4.0e12}"),
                     HK_OK);
    assert_int_equal(store_device_put(s, "NVIDIA H200", "9.0", "{\"dram_bytes_per_s\":4.1e12}"),
                     HK_OK);
    assert_int_equal(store_device_get(s, "NVIDIA H200", &d), HK_OK);
    assert_string_equal(d.cc, "9.0");
    assert_non_null(strstr(d.peaks_json, "4.1e12"));
    store_device_clear(&d);
    store_close(s);
}

static void bad_input_is_refused(void **state)
{
    char path[300];
    db_path(path, sizeof path, "bad.db");
    store *s = NULL;
    assert_int_equal(store_open(path, &s), HK_OK);
    struct fixture f;
    build_fixture(s, &f, "sm_90");
    int64_t id;
    /* Malformed JSON is refused by the schema, with a message. */
    assert_int_equal(store_evidence_add(s, f.v0, f.ep, "ncu", "{not json", &id), HK_EINVAL);
    assert_non_null(strstr(store_errmsg(s), "add evidence"));
    assert_int_equal(store_episode_set_info(s, f.ep, "[1,"), HK_EINVAL);
    /* Unknown references. */
    assert_int_equal(store_evidence_add(s, 12345, f.ep, "ncu", "{}", &id), HK_EINVAL);
    store_version_new vn = {.episode_id = 777, .source = "x", .status = STORE_V_CANDIDATE};
    assert_int_equal(store_version_add(s, &vn, &id), HK_EINVAL);
    vn.episode_id = f.ep;
    vn.source = NULL;
    assert_int_equal(store_version_add(s, &vn, &id), HK_EINVAL);
    /* A parent from another kernel would corrupt the chain. */
    int64_t other_k, other_ep, other_v;
    assert_int_equal(store_kernel_upsert(s, "/src/other.cu", "saxpy", NULL, &other_k), HK_OK);
    store_episode_new en = {.kernel_id = other_k, .target = "nvidia"};
    assert_int_equal(store_episode_create(s, &en, &other_ep), HK_OK);
    vn.episode_id = other_ep;
    vn.source = "y";
    assert_int_equal(store_version_add(s, &vn, &other_v), HK_OK);
    vn.parent_id = f.v1;
    assert_int_equal(store_version_add(s, &vn, &id), HK_EINVAL);
    assert_int_equal(store_episode_set_best(s, f.ep, other_v), HK_EINVAL);
    assert_int_equal(store_episode_set_best(s, 4242, f.v1), HK_ENOENT);
    /* Numbers are per kernel: the other kernel's first version is v0. */
    store_version v;
    assert_int_equal(store_version_get(s, other_v, &v), HK_OK);
    assert_int_equal(v.number, 0);
    store_version_clear(&v);
    store_episode e;
    assert_int_equal(store_episode_get(s, other_ep, &e), HK_OK);
    assert_string_equal(e.name, "saxpy nvidia");
    store_episode_clear(&e);

    store_measurement m = {.version_id = f.v1, .episode_id = f.ep, .kind = STORE_M_CANDIDATE,
                           .median_ms = 0, .p10_ms = NAN, .p90_ms = NAN, .spread = NAN};
    assert_int_equal(store_measurement_add(s, &m, &id), HK_EINVAL);
    m.median_ms = NAN;
    assert_int_equal(store_measurement_add(s, &m, &id), HK_EINVAL);
    m.median_ms = 1;
    m.kind = (enum store_measure_kind)9;
    assert_int_equal(store_measurement_add(s, &m, &id), HK_EINVAL);
    assert_int_equal(store_episode_get(s, 999, &e), HK_ENOENT);
    assert_int_equal(store_kernel_upsert(s, "", "k", NULL, &id), HK_EINVAL);
    assert_int_equal(store_event_add(s, f.ep, "", "m", NULL, NULL), HK_EINVAL);
    assert_int_equal(store_tx_commit(s), HK_ESTATE);
    assert_int_equal(store_tx_begin(s), HK_OK);
    assert_int_equal(store_tx_begin(s), HK_ESTATE);
    assert_int_equal(store_migrate(s, 0), HK_ESTATE);
    assert_int_equal(store_tx_rollback(s), HK_OK);
    store_close(s);

    /* Not a database: a clear error, not a crash. */
    db_path(path, sizeof path, "garbage.db");
    FILE *fp = fopen(path, "w");
    for (int i = 0; i < 200; i++)
        fputs("this is not an SQLite file at all. ", fp);
    fclose(fp);
    char why[256];
    assert_int_equal(store_open_ex(path, 0, &s, why, sizeof why), HK_EDB);
    assert_null(s);
    assert_non_null(strstr(why, "not a database"));
    /* Missing directories are made; a directory under a regular file cannot be. */
    char nested[400];
    snprintf(nested, sizeof nested, "%s/new/dirs/h.db", tmpdir);
    assert_int_equal(store_open(nested, &s), HK_OK);
    store_close(s);
    snprintf(nested, sizeof nested, "%s/x/y.db", path);
    assert_int_equal(store_open(nested, &s), HK_EIO);
    assert_null(s);
    /* A directory where the database should be. */
    snprintf(nested, sizeof nested, "%s/new", tmpdir);
    assert_int_equal(store_open(nested, &s), HK_EDB);
}

static void filters_and_lists(void **state)
{
    store *s = NULL;
    assert_int_equal(store_open(":memory:", &s), HK_OK);
    int64_t ka, kb, e[4];
    assert_int_equal(store_kernel_upsert(s, "/a.cu", "ka", NULL, &ka), HK_OK);
    assert_int_equal(store_kernel_upsert(s, "/b.cu", "kb", NULL, &kb), HK_OK);
    store_episode_new en = {.kernel_id = ka, .name = "first", .arch = "sm_90", .pid = getpid()};
    assert_int_equal(store_episode_create(s, &en, &e[0]), HK_OK);
    en.name = NULL;
    assert_int_equal(store_episode_create(s, &en, &e[1]), HK_OK);
    en.kernel_id = kb;
    assert_int_equal(store_episode_create(s, &en, &e[2]), HK_OK);
    assert_int_equal(store_episode_create(s, &en, &e[3]), HK_OK);
    assert_int_equal(store_episode_finish(s, e[0], STORE_EP_COMPLETED, NULL), HK_OK);
    assert_int_equal(store_episode_finish(s, e[2], STORE_EP_FAILED, "nvcc: error"), HK_OK);
    assert_int_equal(store_episode_set_status(s, e[3], STORE_EP_STOPPED, NULL), HK_OK);

    store_episode *list;
    size_t n;
    assert_int_equal(store_episode_list(s, NULL, &list, &n), HK_OK);
    assert_int_equal(n, 4);
    assert_int_equal(list[0].id, e[3]); /* newest first */
    store_episodes_free(list, n);

    store_episode_filter f = {.status_mask = STORE_EP_MASK(STORE_EP_COMPLETED) |
                                             STORE_EP_MASK(STORE_EP_FAILED)};
    assert_int_equal(store_episode_list(s, &f, &list, &n), HK_OK);
    assert_int_equal(n, 2);
    assert_int_equal(list[0].id, e[2]);
    assert_string_equal(list[0].error, "nvcc: error");
    assert_int_equal(list[1].id, e[0]);
    assert_string_equal(list[1].name, "first");
    store_episodes_free(list, n);

    f = (store_episode_filter){.file = "/a.cu"};
    assert_int_equal(store_episode_list(s, &f, &list, &n), HK_OK);
    assert_int_equal(n, 2);
    store_episodes_free(list, n);
    f = (store_episode_filter){.kernel = "kb", .status_mask = STORE_EP_MASK(STORE_EP_RUNNING)};
    assert_int_equal(store_episode_list(s, &f, &list, &n), HK_OK);
    assert_int_equal(n, 0);
    assert_null(list);
    f = (store_episode_filter){.kernel_id = kb, .limit = 1};
    assert_int_equal(store_episode_list(s, &f, &list, &n), HK_OK);
    assert_int_equal(n, 1);
    assert_int_equal(list[0].status, STORE_EP_STOPPED);
    store_episodes_free(list, n);
    /* Back to running clears the end time (a resumed worker). */
    assert_int_equal(store_episode_set_status(s, e[3], STORE_EP_RUNNING, NULL), HK_OK);
    store_episode ep;
    assert_int_equal(store_episode_get(s, e[3], &ep), HK_OK);
    assert_int_equal(ep.ended_ms, 0);
    store_episode_clear(&ep);

    store_kernel *ks;
    assert_int_equal(store_kernel_list(s, NULL, &ks, &n), HK_OK);
    assert_int_equal(n, 2);
    assert_string_equal(ks[0].file, "/a.cu");
    store_kernels_free(ks, n);
    assert_int_equal(store_kernel_list(s, "/b.cu", &ks, &n), HK_OK);
    assert_int_equal(n, 1);
    assert_string_equal(ks[0].name, "kb");
    store_kernels_free(ks, n);

    store_event *evs;
    for (int i = 0; i < 5; i++)
        assert_int_equal(store_event_add(s, e[1], "optimize", "c", NULL, NULL), HK_OK);
    assert_int_equal(store_event_list(s, e[1], 0, 2, &evs, &n), HK_OK);
    assert_int_equal(n, 2);
    int64_t after = evs[1].id;
    store_events_free(evs, n);
    assert_int_equal(store_event_list(s, e[1], after, 0, &evs, &n), HK_OK);
    assert_int_equal(n, 3);
    store_events_free(evs, n);
    store_close(s);
}

static void chain_queries(void **state)
{
    store *s = NULL;
    assert_int_equal(store_open(":memory:", &s), HK_OK);
    struct fixture f;
    build_fixture(s, &f, "sm_90");
    store_history_row *rows;
    size_t n;
    assert_int_equal(store_kernel_history(s, f.kernel, &rows, &n), HK_OK);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].version.number, (int)i);
        assert_null(rows[i].version.source);
    }
    /* v0 against itself, by its verify measurement (preferred over the faster baseline one). */
    assert_true(rows[0].measured);
    assert_int_equal(rows[0].best.kind, STORE_M_VERIFY);
    assert_true(fabs(rows[0].speedup - 1.0) < 1e-12);
    /* v1 has only a candidate measurement: 2.1 / 1.5. */
    assert_true(fabs(rows[1].speedup - 2.1 / 1.5) < 1e-9);
    assert_true(fabs(rows[1].speedup_lo - 2.0 / 1.6) < 1e-9);
    assert_true(fabs(rows[1].speedup_hi - 2.2 / 1.4) < 1e-9);
    /* v2 was rejected, never measured. */
    assert_false(rows[2].measured);
    assert_true(isnan(rows[2].speedup));
    assert_string_equal(rows[2].version.reject_reason, "wrong answer");
    /* v3: verify (1.0) preferred over the faster candidate run (0.9). */
    assert_true(fabs(rows[3].best.median_ms - 1.0) < 1e-12);
    assert_true(fabs(rows[3].speedup - 2.1) < 1e-9);
    assert_true(fabs(rows[3].version.max_abs_err - 1e-6) < 1e-15);
    assert_int_equal(rows[3].version.parent_id, f.v1);
    store_history_free(rows, n);

    store_version best;
    assert_int_equal(store_kernel_best_verified(s, f.kernel, NULL, &best), HK_OK);
    assert_int_equal(best.id, f.v3);
    assert_string_equal(best.source, "__global__ void k(){ float4 }");
    store_version_clear(&best);
    assert_int_equal(store_kernel_best_verified(s, f.kernel, "sm_90", &best), HK_OK);
    store_version_clear(&best);
    assert_int_equal(store_kernel_best_verified(s, f.kernel, "sm_80", &best), HK_ENOENT);

    /* A second episode on the same kernel starts from v3, keeps v0 as its baseline and
     * re-measures both: its view holds v0 (first) and its own versions, with its own
     * measurements; its v5 is the new best of the kernel. */
    store_episode_new en = {.kernel_id = f.kernel, .arch = "sm_90", .engine = "builtin"};
    int64_t ep2, v4, v5;
    assert_int_equal(store_episode_create(s, &en, &ep2), HK_OK);
    assert_int_equal(store_episode_set_baseline(s, ep2, f.v0), HK_OK);
    store_version_new vn = {.episode_id = ep2, .parent_id = f.v3, .source = "v4",
                            .status = STORE_V_VERIFIED};
    assert_int_equal(store_version_add(s, &vn, &v4), HK_OK);
    vn.parent_id = v4;
    vn.source = "v5";
    assert_int_equal(store_version_add(s, &vn, &v5), HK_OK);
    add_meas(s, f.v0, ep2, STORE_M_VERIFY, 2.4, 2.3, 2.5);
    add_meas(s, v4, ep2, STORE_M_VERIFY, 1.2, 1.1, 1.3);
    add_meas(s, v5, ep2, STORE_M_VERIFY, 0.8, 0.75, 0.85);
    assert_int_equal(store_episode_versions(s, ep2, &rows, &n), HK_OK);
    assert_int_equal(n, 3);
    assert_int_equal(rows[0].version.id, f.v0);
    assert_true(fabs(rows[0].best.median_ms - 2.4) < 1e-12); /* measured in ep2 */
    assert_int_equal(rows[1].version.number, 4);
    assert_true(fabs(rows[2].speedup - 3.0) < 1e-9);
    store_history_free(rows, n);
    assert_int_equal(store_kernel_best_verified(s, f.kernel, NULL, &best), HK_OK);
    assert_int_equal(best.id, v5);
    store_version_clear(&best);
    assert_int_equal(store_episode_versions(s, 999, &rows, &n), HK_ENOENT);

    /* Sizes: a version measured at one size is compared with its baseline at that size,
     * not with the baseline's fastest (smaller) size. */
    int64_t k2, e3, b, c;
    assert_int_equal(store_kernel_upsert(s, "/s.cu", "sized", NULL, &k2), HK_OK);
    en = (store_episode_new){.kernel_id = k2, .arch = "sm_90"};
    assert_int_equal(store_episode_create(s, &en, &e3), HK_OK);
    vn = (store_version_new){.episode_id = e3, .source = "b", .status = STORE_V_VERIFIED};
    assert_int_equal(store_version_add(s, &vn, &b), HK_OK);
    vn.parent_id = b;
    vn.source = "c";
    assert_int_equal(store_version_add(s, &vn, &c), HK_OK);
    assert_int_equal(store_episode_set_baseline(s, e3, b), HK_OK);
    store_measurement m = {.version_id = b, .episode_id = e3, .kind = STORE_M_BASELINE,
                           .median_ms = 0.010, .p10_ms = NAN, .p90_ms = NAN, .spread = NAN,
                           .bytes_per_s = NAN, .flop_per_s = NAN, .roofline_pct = NAN,
                           .size_key = "n=1000"};
    assert_int_equal(store_measurement_add(s, &m, NULL), HK_OK);
    m.median_ms = 1.0;
    m.size_key = "n=1000000";
    assert_int_equal(store_measurement_add(s, &m, NULL), HK_OK);
    m.version_id = c;
    m.kind = STORE_M_CANDIDATE;
    m.median_ms = 0.5;
    assert_int_equal(store_measurement_add(s, &m, NULL), HK_OK);
    assert_int_equal(store_kernel_history(s, k2, &rows, &n), HK_OK);
    assert_int_equal(n, 2);
    assert_true(fabs(rows[1].speedup - 2.0) < 1e-12);
    assert_string_equal(rows[1].base.size_key, "n=1000000");
    assert_true(isnan(rows[1].speedup_lo)); /* no p10/p90: no spread */
    store_history_free(rows, n);
    store_close(s);
}

static void migrates_from_v1(void **state)
{
    char path[300];
    db_path(path, sizeof path, "v1.db");
    store *s = NULL;
    assert_int_equal(store_open_version(path, 1, &s), HK_OK);
    int ver;
    assert_int_equal(store_schema_version(s, &ver), HK_OK);
    assert_int_equal(ver, 1);
    store_close(s);
    assert_int_equal(raw_int(path, "SELECT COUNT(*) FROM pragma_table_info('episodes')"
                                   " WHERE name = 'device'"),
                     0);
    /* Rows as the first schema wrote them. */
    raw_exec(path,
             "INSERT INTO kernels VALUES(1, '/old.cu', 'old_k', 'abc', 1000);"
             "INSERT INTO episodes(id, name, kernel_id, status, started_ms, ended_ms)"
             " VALUES(1, 'old run', 1, 'completed', 1000, 2000);"
             "INSERT INTO versions(id, episode_id, kernel_id, number, source, content_hash,"
             " status, created_ms) VALUES(1, 1, 1, 0, 'src', 'h', 'verified', 1500);"
             "UPDATE episodes SET baseline_version_id = 1 WHERE id = 1;");

    assert_int_equal(store_open(path, &s), HK_OK);
    assert_int_equal(store_schema_version(s, &ver), HK_OK);
    assert_int_equal(ver, STORE_SCHEMA_VERSION);
    store_episode e;
    assert_int_equal(store_episode_get(s, 1, &e), HK_OK);
    assert_string_equal(e.name, "old run");
    assert_int_equal(e.status, STORE_EP_COMPLETED);
    assert_null(e.device);
    assert_int_equal(e.baseline_version_id, 1);
    store_episode_clear(&e);
    store_version v;
    assert_int_equal(store_version_get(s, 1, &v), HK_OK);
    assert_true(isnan(v.max_abs_err));
    store_version_clear(&v);
    assert_int_equal(store_device_put(s, "GPU", "8.0", "{}"), HK_OK);
    store_close(s);
    assert_int_equal(raw_int(path, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'"
                                   " AND name = 'events_by_episode'"),
                     1);

    /* A database from a newer build is refused, untouched. */
    raw_exec(path, "PRAGMA user_version = 99");
    char why[256];
    assert_int_equal(store_open_ex(path, 0, &s, why, sizeof why), HK_EUNSUPPORTED);
    assert_string_equal(why, "database schema version 99 is newer than 3 (this build)");
    assert_int_equal(raw_int(path, "PRAGMA user_version"), 99);
}

static void failed_migration_rolls_back(void **state)
{
    char path[300];
    db_path(path, sizeof path, "v1broken.db");
    store *s = NULL;
    assert_int_equal(store_open_version(path, 1, &s), HK_OK);
    store_close(s);
    /* Something already named like a table step 2 creates: step 2 must fail as a whole. */
    raw_exec(path, "CREATE TABLE devices(x)");
    assert_int_equal(store_open(path, &s), HK_EDB);
    assert_int_equal(raw_int(path, "PRAGMA user_version"), 1);
    /* The ALTERs of the failed step did not stick. */
    assert_int_equal(raw_int(path, "SELECT COUNT(*) FROM pragma_table_info('episodes')"
                                   " WHERE name = 'device'"),
                     0);
    raw_exec(path, "DROP TABLE devices");
    assert_int_equal(store_open(path, &s), HK_OK);
    store_close(s);
}

static void marks_interrupted(void **state)
{
    store *s = NULL;
    assert_int_equal(store_open(":memory:", &s), HK_OK);
    int64_t k, alive, dead, zombie, nopid;
    assert_int_equal(store_kernel_upsert(s, "/x.cu", "k", NULL, &k), HK_OK);
    store_episode_new en = {.kernel_id = k, .pid = getpid()};
    assert_int_equal(store_episode_create(s, &en, &alive), HK_OK);

    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0)
        _exit(0);
    waitpid(c, NULL, 0); /* reaped: the pid no longer exists */
    en.pid = c;
    assert_int_equal(store_episode_create(s, &en, &dead), HK_OK);

    pid_t z = fork();
    assert_true(z >= 0);
    if (z == 0)
        _exit(0);
    /* Not reaped yet: a zombie still answers kill(pid, 0). */
    for (int i = 0; i < 200; i++) {
        char p[64], buf[256];
        snprintf(p, sizeof p, "/proc/%d/stat", (int)z);
        FILE *fp = fopen(p, "r");
        size_t len = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
        if (fp)
            fclose(fp);
        buf[len] = '\0';
        if (strstr(buf, ") Z"))
            break;
        usleep(5000);
    }
    en.pid = z;
    assert_int_equal(store_episode_create(s, &en, &zombie), HK_OK);
    en.pid = 0;
    assert_int_equal(store_episode_create(s, &en, &nopid), HK_OK);
    int64_t done;
    en.pid = c;
    assert_int_equal(store_episode_create(s, &en, &done), HK_OK);
    assert_int_equal(store_episode_finish(s, done, STORE_EP_COMPLETED, NULL), HK_OK);

    size_t n = 99;
    assert_int_equal(store_mark_interrupted(s, &n), HK_OK);
    assert_int_equal(n, 3);
    waitpid(z, NULL, 0);
    store_episode e;
    assert_int_equal(store_episode_get(s, alive, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_RUNNING);
    store_episode_clear(&e);
    assert_int_equal(store_episode_get(s, dead, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_INTERRUPTED);
    assert_true(e.ended_ms > 0);
    assert_non_null(strstr(e.error, "ended without finishing"));
    store_episode_clear(&e);
    assert_int_equal(store_episode_get(s, zombie, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_INTERRUPTED);
    store_episode_clear(&e);
    assert_int_equal(store_episode_get(s, nopid, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_INTERRUPTED);
    store_episode_clear(&e);
    assert_int_equal(store_episode_get(s, done, &e), HK_OK);
    assert_int_equal(e.status, STORE_EP_COMPLETED);
    store_episode_clear(&e);
    /* The worker of an interrupted episode cannot finish it over the mark. */
    assert_int_equal(store_episode_finish(s, dead, STORE_EP_COMPLETED, NULL), HK_ESTATE);
    assert_int_equal(store_mark_interrupted(s, &n), HK_OK);
    assert_int_equal(n, 0);
    store_close(s);
}

/* The store's last error, made in lang on this thread: want in that language. */
static void errmsg_is(store *s, int rc, const char *want)
{
    const char *got = store_errmsg(s);
    if (strcmp(got, want))
        fail_msg("store error (rc %d)\n  got  %s\n  want %s", rc, got, want);
}

/* Session 40 (docs/i18n.md): the store's errors speak the thread's language -- the CLI's
 * and the editor's in the user's, byte for byte the old English in English -- and what the
 * store keeps (an interrupted episode's error) and what the episode worker, which speaks
 * English on its thread, stores after "store: " is English, said again in zh-CN by
 * hk_tr_said. */
static void errors_in_the_users_language(void **state)
{
    (void)state;
    store *s = NULL;
    assert_int_equal(store_open(":memory:", &s), HK_OK);
    store_device d;
    int64_t k, kid = 0, ep;
    static const struct {
        const char *en, *zh;
    } want[] = {
        {"device gpu0 was never measured", "设备 gpu0 从未测量过"},
        {"kernel file and name are required", "需要核函数的文件和名称"},
        {"no kernel q in /x.cu", "没有核函数 q（在 /x.cu 中）"},
        {"no open transaction", "没有打开的事务"},
        {"episode for unknown kernel 77", "优化任务所属的核函数 77 不存在"},
        {"skill s recorded as helping with speedup 0.5 (must be > 1)",
         "优化技能 s 被记为有效，但加速比为 0.5（必须 > 1）"},
        {"episode 1: not running", "优化任务 1：不在运行中"},
        {"no episode 99", "没有优化任务 99"},
    };
    for (int lang = 0; lang < 2; lang++) {
        hk_i18n_set(lang ? HK_LANG_ZH_CN : HK_LANG_EN);
        size_t i = 0;
#define SAYS(call, code)                                                                      \
    do {                                                                                      \
        int rc_ = (call);                                                                     \
        assert_int_equal(rc_, code);                                                          \
        errmsg_is(s, rc_, lang ? want[i].zh : want[i].en);                                   \
        if (lang)                                                                             \
            assert_false(said_english_run(store_errmsg(s)));                                      \
        i++;                                                                                  \
    } while (0)
        SAYS(store_device_get(s, "gpu0", &d), HK_ENOENT);
        SAYS(store_kernel_find(s, NULL, "k", &k), HK_EINVAL);
        SAYS(store_kernel_find(s, "/x.cu", "q", &k), HK_ENOENT);
        SAYS(store_tx_commit(s), HK_ESTATE);
        store_episode_new en = {.kernel_id = 77};
        SAYS(store_episode_create(s, &en, &ep), HK_EINVAL);
        SAYS(store_skill_record(s, "s", "k", NULL, "sm_90", true, 0.5), HK_EINVAL);
        if (lang == 0) {
            assert_int_equal(store_kernel_upsert(s, "/x.cu", "k", NULL, &kid), HK_OK);
            en.kernel_id = kid;
            assert_int_equal(store_episode_create(s, &en, &ep), HK_OK);
            assert_int_equal(ep, 1);
            assert_int_equal(store_episode_finish(s, ep, STORE_EP_COMPLETED, NULL), HK_OK);
        }
        SAYS(store_episode_finish(s, 1, STORE_EP_FAILED, NULL), HK_ESTATE);
        store_episode none;
        SAYS(store_episode_get(s, 99, &none), HK_ENOENT);
#undef SAYS
        assert_int_equal(i, sizeof want / sizeof want[0]);
    }
    /* the episode worker's thread speaks English whatever the process does: its store
     * error is stored so, and said again in Chinese where it is shown */
    int prev = hk_i18n_thread_lang(HK_LANG_EN);
    assert_int_equal(store_device_get(s, "gpu0", &d), HK_ENOENT);
    hk_i18n_thread_lang(prev);
    assert_string_equal(store_errmsg(s), "device gpu0 was never measured");
    char *stored = hk_asprintf("store: %s", store_errmsg(s));
    char *zh = hk_tr_said(HK_LANG_ZH_CN, stored);
    assert_non_null(zh);
    assert_string_equal(zh, "存储：设备 gpu0 从未测量过");
    hk_free(zh);
    hk_free(stored);
    /* an interrupted episode's error is stored in English from a zh-CN process */
    store_episode_new en = {.kernel_id = kid, .pid = 0};
    assert_int_equal(store_episode_create(s, &en, &ep), HK_OK);
    size_t n = 0;
    assert_int_equal(store_mark_interrupted(s, &n), HK_OK);
    assert_int_equal(n, 1);
    store_episode e;
    assert_int_equal(store_episode_get(s, ep, &e), HK_OK);
    assert_string_equal(e.error, "interrupted: no worker process recorded");
    zh = hk_tr_said(HK_LANG_ZH_CN, e.error);
    assert_non_null(zh);
    assert_string_equal(zh, "已中断：没有记录工作进程");
    hk_free(zh);
    assert_null(hk_tr_said(HK_LANG_EN, e.error));
    store_episode_clear(&e);
    zh = hk_tr_said(HK_LANG_ZH_CN, "interrupted: worker process 4242 ended without finishing");
    assert_non_null(zh);
    assert_string_equal(zh, "已中断：工作进程 4242 未完成就结束了");
    hk_free(zh);
    hk_i18n_set(HK_LANG_EN);
    store_close(s);
}

static void two_handles_wal(void **state)
{
    char path[300];
    db_path(path, sizeof path, "two.db");
    store *a = NULL, *b = NULL;
    assert_int_equal(store_open(path, &a), HK_OK);
    assert_int_equal(store_open(path, &b), HK_OK);
    int64_t k, ep, id;
    assert_int_equal(store_kernel_upsert(a, "/t.cu", "k", NULL, &k), HK_OK);
    store_episode_new en = {.kernel_id = k, .pid = getpid()};
    assert_int_equal(store_episode_create(a, &en, &ep), HK_OK);
    store_episode e;
    assert_int_equal(store_episode_get(b, ep, &e), HK_OK); /* b sees a's commit */
    store_episode_clear(&e);

    /* While a holds a write transaction, b still reads (the last committed state) ... */
    assert_int_equal(store_tx_begin(a), HK_OK);
    assert_int_equal(store_event_add(a, ep, "init", "inside", NULL, NULL), HK_OK);
    store_event *evs;
    size_t n;
    assert_int_equal(store_event_list(b, ep, 0, 0, &evs, &n), HK_OK);
    assert_int_equal(n, 0);
    /* ... but cannot write: after its busy timeout it gets a clear error. */
    assert_int_equal(store_set_busy_timeout(b, 50), HK_OK);
    assert_int_equal(store_event_add(b, ep, "init", "b", NULL, &id), HK_EDB);
    assert_non_null(strstr(store_errmsg(b), "locked"));
    assert_int_equal(store_tx_commit(a), HK_OK);
    assert_int_equal(store_event_add(b, ep, "init", "b", NULL, &id), HK_OK);
    assert_int_equal(store_event_list(a, ep, 0, 0, &evs, &n), HK_OK);
    assert_int_equal(n, 2);
    store_events_free(evs, n);
    /* A rolled back transaction leaves nothing. */
    assert_int_equal(store_tx_begin(a), HK_OK);
    assert_int_equal(store_event_add(a, ep, "init", "gone", NULL, NULL), HK_OK);
    assert_int_equal(store_tx_rollback(a), HK_OK);
    assert_int_equal(store_event_list(b, ep, 0, 0, &evs, &n), HK_OK);
    assert_int_equal(n, 2);
    store_events_free(evs, n);
    store_close(a);
    store_close(b);
}

/* One unit of work: an episode with three versions and an event, in one transaction. */
static int write_unit(store *s, int64_t k, int i)
{
    int rc = store_tx_begin(s);
    if (rc)
        return rc;
    store_episode_new en = {.kernel_id = k, .pid = getpid()};
    int64_t ep, v = 0;
    rc = store_episode_create(s, &en, &ep);
    for (int j = 0; rc == HK_OK && j < 3; j++) {
        char src[64];
        snprintf(src, sizeof src, "unit %d version %d", i, j);
        store_version_new vn = {.episode_id = ep, .parent_id = v, .source = src,
                                .status = STORE_V_CANDIDATE};
        rc = store_version_add(s, &vn, &v);
    }
    if (rc == HK_OK)
        rc = store_event_add(s, ep, "optimize", "unit", NULL, NULL);
    if (rc) {
        store_tx_rollback(s);
        return rc;
    }
    return store_tx_commit(s);
}

static void crash_mid_transaction(void **state)
{
    char path[300];
    db_path(path, sizeof path, "crash.db");
    store *s = NULL;
    int64_t k;
    assert_int_equal(store_open(path, &s), HK_OK);
    assert_int_equal(store_kernel_upsert(s, "/c.cu", "k", NULL, &k), HK_OK);
    store_close(s);

    /* Child 1 commits one unit, starts a second and _exit()s halfway through it. */
    pid_t c = fork();
    assert_true(c >= 0);
    if (c == 0) {
        store *cs = NULL;
        if (store_open(path, &cs) || write_unit(cs, k, 0) || store_tx_begin(cs))
            _exit(2);
        store_episode_new en = {.kernel_id = k, .pid = getpid()};
        int64_t ep, v;
        store_episode_create(cs, &en, &ep);
        store_version_new vn = {.episode_id = ep, .source = "half", .status = STORE_V_CANDIDATE};
        store_version_add(cs, &vn, &v);
        _exit(0); /* no commit, no close */
    }
    int status;
    waitpid(c, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);

    /* Child 2 writes units in a loop and is killed with SIGKILL at some point. */
    pid_t w = fork();
    assert_true(w >= 0);
    if (w == 0) {
        /* Dies with the test: a failed assertion must not leave it writing forever. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        store *cs = NULL;
        if (store_open(path, &cs))
            _exit(2);
        for (int i = 1; i < 100000; i++)
            if (write_unit(cs, k, i))
                _exit(3);
        _exit(4);
    }
    /* Let it commit a few units before killing it. */
    for (int i = 0; i < 400; i++) {
        usleep(5000);
        if (raw_int(path, "SELECT COUNT(*) FROM episodes") >= 6)
            break;
    }
    kill(w, SIGKILL);
    waitpid(w, &status, 0);
    assert_true(WIFSIGNALED(status));

    assert_int_equal(store_open(path, &s), HK_OK);
    char *ok = raw_text(path, "PRAGMA integrity_check");
    assert_string_equal(ok, "ok");
    free(ok);
    assert_int_equal(raw_int(path, "SELECT COUNT(*) FROM versions WHERE source = 'half'"), 0);
    /* Every episode that exists is whole: three versions and its event. */
    assert_int_equal(raw_int(path, "SELECT COUNT(*) FROM episodes e WHERE"
                                   " (SELECT COUNT(*) FROM versions v WHERE v.episode_id = e.id) != 3"
                                   " OR (SELECT COUNT(*) FROM events x WHERE x.episode_id = e.id) != 1"),
                     0);
    long long eps = raw_int(path, "SELECT COUNT(*) FROM episodes");
    assert_true(eps >= 2);
    assert_int_equal(raw_int(path, "SELECT COUNT(*) FROM pragma_foreign_key_check"), 0);
    /* Both workers are gone: their episodes are interrupted at the next start. */
    size_t n;
    assert_int_equal(store_mark_interrupted(s, &n), HK_OK);
    assert_int_equal(n, (size_t)eps);
    store_history_row *rows;
    assert_int_equal(store_kernel_history(s, k, &rows, &n), HK_OK);
    assert_int_equal(n, (size_t)eps * 3);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rows[i].version.number, (int)i); /* no gaps, no duplicates */
    store_history_free(rows, n);
    store_close(s);
}

/* Every allocation failure on the read paths returns HK_ENOMEM (or succeeds) and leaks
 * nothing. */
static void allocation_failures(void **state)
{
    long live0 = hk_alloc_live();
    store *s = NULL;
    assert_int_equal(store_open(":memory:", &s), HK_OK);
    struct fixture f;
    build_fixture(s, &f, "sm_90");
    assert_int_equal(store_event_add(s, f.ep, "init", "a", NULL, NULL), HK_OK);
    assert_int_equal(store_event_add(s, f.ep, "baseline", "b", NULL, NULL), HK_OK);
    long live = hk_alloc_live();
    int saw_enomem = 0;
    for (int which = 0; which < 6; which++) {
        bool done = false;
        for (long i = 1; i < 500 && !done; i++) {
            hk_alloc_fail_after(i);
            int rc = HK_OK;
            switch (which) {
            case 0: {
                store_episode e;
                rc = store_episode_get(s, f.ep, &e);
                store_episode_clear(&e);
                break;
            }
            case 1: {
                store_episode *l;
                size_t n;
                rc = store_episode_list(s, NULL, &l, &n);
                store_episodes_free(l, n);
                break;
            }
            case 2: {
                store_history_row *r;
                size_t n;
                rc = store_kernel_history(s, f.kernel, &r, &n);
                store_history_free(r, n);
                break;
            }
            case 3: {
                store_stage *st;
                size_t n;
                rc = store_episode_stages(s, f.ep, &st, &n);
                store_stages_free(st, n);
                break;
            }
            case 4: {
                store_version v;
                rc = store_kernel_best_verified(s, f.kernel, "sm_90", &v);
                store_version_clear(&v);
                break;
            }
            case 5: {
                int64_t ep;
                store_episode_new en = {.kernel_id = f.kernel, .arch = "sm_90"};
                rc = store_episode_create(s, &en, &ep);
                break;
            }
            }
            hk_alloc_fail_after(0);
            if (rc == HK_ENOMEM)
                saw_enomem++;
            else
                assert_int_equal(rc, HK_OK);
            done = rc == HK_OK;
            assert_int_equal(hk_alloc_live(), live);
        }
        assert_true(done);
    }
    assert_true(saw_enomem >= 6);
    hk_alloc_fail_after(1);
    store *s2 = NULL;
    assert_int_equal(store_open(":memory:", &s2), HK_ENOMEM);
    hk_alloc_fail_after(0);
    assert_null(s2);
    store_close(s);
    assert_int_equal(hk_alloc_live(), live0);
}

/* Processes that open a database which does not exist yet, at the same moment (an episode's
 * worker creating it while the editor's server polls it for the worker's row: the CI's
 * protocol/i18n_episode failed so once, "database is locked"): every open succeeds. Both
 * try to put the new file in WAL mode and SQLite answers one SQLITE_BUSY without calling
 * the busy handler; store_open_ex retries. Before the retry 10 of 400 such opens failed. */
static void fresh_file_opened_at_once(void **state)
{
    (void)state;
    char path[300], wal[320], shm[320];
    db_path(path, sizeof path, "fresh.db");
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    int failed = 0;
    for (int round = 0; round < 100; round++) {
        unlink(path);
        unlink(wal);
        unlink(shm);
        int go[2];
        assert_int_equal(pipe(go), 0);
        for (int c = 0; c < 4; c++) {
            pid_t pid = fork();
            assert_true(pid >= 0);
            if (pid == 0) {
                char b;
                close(go[1]);
                if (read(go[0], &b, 1) < 0)
                    _exit(3);
                store *st = NULL;
                char err[256] = "";
                if (store_open_ex(path, 0, &st, err, sizeof err) != HK_OK) {
                    fprintf(stderr, "round %d: %s\n", round, err);
                    _exit(1);
                }
                store_close(st);
                _exit(0);
            }
        }
        close(go[0]);
        close(go[1]); /* the end of the pipe lets all four go at once */
        for (int c = 0; c < 4; c++) {
            int status;
            assert_true(wait(&status) > 0);
            failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        }
    }
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hash_vectors),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(bad_input_is_refused),
        cmocka_unit_test(filters_and_lists),
        cmocka_unit_test(chain_queries),
        cmocka_unit_test(migrates_from_v1),
        cmocka_unit_test(failed_migration_rolls_back),
        cmocka_unit_test(marks_interrupted),
        cmocka_unit_test(errors_in_the_users_language),
        cmocka_unit_test(two_handles_wal),
        cmocka_unit_test(fresh_file_opened_at_once),
        cmocka_unit_test(crash_mid_transaction),
        cmocka_unit_test(allocation_failures),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
