/* The store handle: opening SQLite in WAL mode, the versioned schema and its ordered
 * migrations, transactions, error mapping, kernels and the device peaks cache.
 * Episodes, versions, measurements and queries live in store_rows.c. */
#include "store/store_impl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/hk.h"

#define STORE_BUSY_TIMEOUT_MS 5000 /* how long a statement waits for another connection's lock */
#define STORE_OPEN_RETRY_MS 10     /* the WAL switch's retry step at open (store_open_ex) */

/* ---- schema ----
 * Each step takes the schema from version-1 to version. Steps are append-only: a
 * released step is never edited, a change is a new step (docs/store.md). */
static const char schema_v1[] =
    "CREATE TABLE kernels(" /* i18n: not for people (SQL) */
    "  id INTEGER PRIMARY KEY,"
    "  file TEXT NOT NULL,"
    "  name TEXT NOT NULL,"
    "  content_hash TEXT NOT NULL DEFAULT '',"
    "  created_ms INTEGER NOT NULL,"
    "  UNIQUE(file, name));"
    "CREATE TABLE episodes("
    "  id INTEGER PRIMARY KEY,"
    "  name TEXT NOT NULL,"
    "  kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
    "  target TEXT NOT NULL DEFAULT '',"
    "  backend TEXT NOT NULL DEFAULT '',"
    "  arch TEXT NOT NULL DEFAULT '',"
    "  engine TEXT NOT NULL DEFAULT '',"
    "  status TEXT NOT NULL CHECK(status IN"
    "    ('running','completed','stopped','failed','interrupted')),"
    "  started_ms INTEGER NOT NULL,"
    "  ended_ms INTEGER,"
    "  budget_json TEXT CHECK(budget_json IS NULL OR json_valid(budget_json)),"
    "  pid INTEGER NOT NULL DEFAULT 0,"
    "  report_json TEXT, report_md TEXT, report_html TEXT,"
    "  error TEXT,"
    "  best_version_id INTEGER REFERENCES versions(id),"
    "  baseline_version_id INTEGER REFERENCES versions(id));"
    "CREATE TABLE versions("
    "  id INTEGER PRIMARY KEY,"
    "  episode_id INTEGER NOT NULL REFERENCES episodes(id),"
    "  kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
    "  parent_id INTEGER REFERENCES versions(id),"
    "  number INTEGER NOT NULL,"
    "  source TEXT NOT NULL,"
    "  launch_json TEXT CHECK(launch_json IS NULL OR json_valid(launch_json)),"
    "  content_hash TEXT NOT NULL,"
    "  status TEXT NOT NULL CHECK(status IN ('candidate','verified','rejected')),"
    "  reject_reason TEXT,"
    "  reject_details TEXT,"
    "  produced_by TEXT,"
    "  created_ms INTEGER NOT NULL,"
    "  UNIQUE(kernel_id, number));"
    "CREATE TABLE measurements("
    "  id INTEGER PRIMARY KEY,"
    "  version_id INTEGER NOT NULL REFERENCES versions(id),"
    "  episode_id INTEGER NOT NULL REFERENCES episodes(id),"
    "  kind TEXT NOT NULL CHECK(kind IN ('baseline','candidate','verify')),"
    "  median_ms REAL NOT NULL CHECK(median_ms > 0),"
    "  p10_ms REAL, p90_ms REAL, spread REAL,"
    "  reps INTEGER NOT NULL DEFAULT 0,"
    "  bytes_per_s REAL, flop_per_s REAL, roofline_pct REAL,"
    "  size_key TEXT,"
    "  raw_json TEXT CHECK(raw_json IS NULL OR json_valid(raw_json)),"
    "  created_ms INTEGER NOT NULL);"
    "CREATE TABLE evidence("
    "  id INTEGER PRIMARY KEY,"
    "  version_id INTEGER NOT NULL REFERENCES versions(id),"
    "  episode_id INTEGER NOT NULL REFERENCES episodes(id),"
    "  kind TEXT NOT NULL,"
    "  json TEXT NOT NULL CHECK(json_valid(json)),"
    "  created_ms INTEGER NOT NULL);"
    "CREATE TABLE events("
    "  id INTEGER PRIMARY KEY,"
    "  episode_id INTEGER NOT NULL REFERENCES episodes(id),"
    "  time_ms INTEGER NOT NULL,"
    "  stage TEXT NOT NULL,"
    "  message TEXT NOT NULL DEFAULT '',"
    "  json TEXT CHECK(json IS NULL OR json_valid(json)));";

/* v2: the device peaks cache, facts the first schema lacked (device, free-form info,
 * the worker's start time to survive pid reuse, accuracy), and indexes for the editor's
 * list and history queries. */
static const char schema_v2[] =
    "CREATE TABLE devices(" /* i18n: not for people (SQL) */
    "  name TEXT PRIMARY KEY,"
    "  cc TEXT NOT NULL DEFAULT '',"
    "  peaks_json TEXT NOT NULL CHECK(json_valid(peaks_json)),"
    "  measured_ms INTEGER NOT NULL);"
    "ALTER TABLE episodes ADD COLUMN device TEXT;"
    "ALTER TABLE episodes ADD COLUMN info_json TEXT"
    "  CHECK(info_json IS NULL OR json_valid(info_json));"
    "ALTER TABLE episodes ADD COLUMN pid_start INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE versions ADD COLUMN max_abs_err REAL;"
    "ALTER TABLE versions ADD COLUMN max_rel_err REAL;"
    "CREATE INDEX episodes_by_status ON episodes(status, started_ms);"
    "CREATE INDEX episodes_by_kernel ON episodes(kernel_id, started_ms);"
    "CREATE INDEX versions_by_episode ON versions(episode_id);"
    "CREATE INDEX measurements_by_version ON measurements(version_id, episode_id);"
    "CREATE INDEX evidence_by_version ON evidence(version_id, episode_id);"
    "CREATE INDEX events_by_episode ON events(episode_id, id);";

/* v3: the skills' record (server/skills): per skill, kernel (name and content hash) and
 * arch, how often it was tried, how often it helped (a verified speedup > 1 with its
 * evidence) and by how much, so the engine tries the best-recorded skills first. */
static const char schema_v3[] =
    "CREATE TABLE skill_results(" /* i18n: not for people (SQL) */
    "  skill_id TEXT NOT NULL,"
    "  kernel TEXT NOT NULL,"
    "  kernel_hash TEXT NOT NULL DEFAULT '',"
    "  hardware TEXT NOT NULL,"
    "  tried INTEGER NOT NULL CHECK(tried >= 1),"
    "  helped INTEGER NOT NULL DEFAULT 0 CHECK(helped >= 0 AND helped <= tried),"
    "  best_speedup REAL,"
    "  helped_speedup_sum REAL NOT NULL DEFAULT 0,"
    "  last_ms INTEGER NOT NULL,"
    "  PRIMARY KEY(skill_id, kernel, kernel_hash, hardware));"
    "CREATE INDEX skill_results_by_hardware ON skill_results(hardware, skill_id);";

static const char *const migrations[] = {schema_v1, schema_v2, schema_v3};
_Static_assert(HK_ARRAY_LEN(migrations) == STORE_SCHEMA_VERSION,
               "one step per schema version"); /* i18n: not for people */

/* ---- names ---- */

static const char *const ep_names[] = {"running", "completed", "stopped", "failed", "interrupted"};
static const char *const v_names[] = {"candidate", "verified", "rejected"};
static const char *const m_names[] = {"baseline", "candidate", "verify"};

const char *store_episode_status_name(enum store_episode_status st)
{
    return (unsigned)st < HK_ARRAY_LEN(ep_names) ? ep_names[st] : "?";
}

const char *store_version_status_name(enum store_version_status st)
{
    return (unsigned)st < HK_ARRAY_LEN(v_names) ? v_names[st] : "?";
}

const char *store_version_status_label(enum store_version_status st, bool measured)
{
    /* a status value, a code like "verified" (history's and the hover's JSON, the reports) */
    return st == STORE_V_CANDIDATE && !measured ? "built, not measured" /* i18n: not for people */
                                                : store_version_status_name(st);
}

const char *store_measure_kind_name(enum store_measure_kind k)
{
    return (unsigned)k < HK_ARRAY_LEN(m_names) ? m_names[k] : "?";
}

int store_episode_status_parse(const char *s, enum store_episode_status *out)
{
    for (unsigned i = 0; s && i < HK_ARRAY_LEN(ep_names); i++) {
        if (strcmp(s, ep_names[i]) == 0) {
            *out = (enum store_episode_status)i;
            return HK_OK;
        }
    }
    return HK_EINVAL;
}

int64_t store_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- errors and helpers ---- */

int store__failf(store *s, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    hk_utf8_trim(s->err); /* a sentence in Chinese cut at the buffer */
    return code;
}

int store__failm(store *s, int code, enum hk_msg id, ...)
{
    va_list ap;
    va_start(ap, id);
    hk_vtr_into(s->err, sizeof s->err, id, ap);
    va_end(ap);
    return code;
}

int store__fail(store *s, int rc, const char *what)
{
    int code;
    switch (rc & 0xff) {
    case SQLITE_CONSTRAINT: code = HK_EINVAL; break;
    case SQLITE_NOMEM: code = HK_ENOMEM; break;
    case SQLITE_TOOBIG: code = HK_ETOOBIG; break;
    default: code = HK_EDB; break;
    }
    const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    return store__failf(s, code, "%s: %s", what, msg ? msg : sqlite3_errstr(rc));
}

const char *store_errmsg(const store *s) { return s ? s->err : "no store"; }

int store__prepare(store *s, const char *sql, sqlite3_stmt **out)
{
    *out = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, out, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(*out);
        *out = NULL;
        return store__fail(s, rc, "prepare");
    }
    return HK_OK;
}

int store__exec_stmt(store *s, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    int ret = HK_OK;
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        ret = store__fail(s, rc, what);
    sqlite3_finalize(st);
    return ret;
}

int store__exec(store *s, const char *sql)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? HK_OK : store__fail(s, rc, "exec");
}

int store__tx_enter(store *s, int *token)
{
    if (sqlite3_get_autocommit(s->db)) {
        *token = 1;
        return store__exec(s, "BEGIN IMMEDIATE");
    }
    *token = 2;
    return store__exec(s, "SAVEPOINT store_unit");
}

int store__tx_leave(store *s, int token, int rc)
{
    if (token == 1) {
        if (rc == HK_OK) {
            rc = store__exec(s, "COMMIT");
            if (rc == HK_OK)
                return HK_OK;
        }
        /* A failed COMMIT may leave the transaction open (SQLITE_BUSY): close it. */
        if (!sqlite3_get_autocommit(s->db))
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    if (token == 2) {
        if (rc == HK_OK)
            return store__exec(s, "RELEASE store_unit");
        sqlite3_exec(s->db, "ROLLBACK TO store_unit; RELEASE store_unit", NULL, NULL, NULL);
    }
    return rc;
}

int store__col_str(sqlite3_stmt *st, int i, char **out)
{
    *out = NULL;
    const unsigned char *t = sqlite3_column_text(st, i);
    if (!t)
        return HK_OK;
    *out = hk_strndup((const char *)t, (size_t)sqlite3_column_bytes(st, i));
    return *out ? HK_OK : HK_ENOMEM;
}

double store__col_double(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int store__bind_str(sqlite3_stmt *st, int i, const char *v)
{
    return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

int store__bind_double(sqlite3_stmt *st, int i, double v)
{
    return isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

int store__bind_id(sqlite3_stmt *st, int i, int64_t v)
{
    return v ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
}

int store__grow(void **arr, size_t *cap, size_t n, size_t elem, size_t max)
{
    if (n < *cap)
        return HK_OK;
    if (n >= max)
        return HK_ETOOBIG;
    size_t ncap = *cap ? *cap * 2 : 8;
    if (ncap > max)
        ncap = max;
    void *p = hk_realloc(*arr, ncap * elem);
    if (!p)
        return HK_ENOMEM;
    /* Zero the new tail so a partially filled array can always be freed row by row. */
    memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
    *arr = p;
    *cap = ncap;
    return HK_OK;
}

/* ---- open, migrate, transactions ---- */

int store_schema_version(store *s, int *out)
{
    sqlite3_stmt *st = NULL;
    *out = 0;
    int rc = store__prepare(s, "PRAGMA user_version", &st);
    if (rc)
        return rc;
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        *out = sqlite3_column_int(st, 0);
    else
        rc = store__fail(s, r, hk_tr(HK_MSG_STORE_READ_SCHEMA_VERSION));
    sqlite3_finalize(st);
    return rc;
}

int store_migrate(store *s, int target)
{
    if (!s)
        return HK_EINVAL;
    if (target == 0)
        target = STORE_SCHEMA_VERSION;
    if (target < 0 || target > STORE_SCHEMA_VERSION)
        return store__failm(s, HK_EUNSUPPORTED, HK_MSG_STORE_UNKNOWN_SCHEMA, target);
    if (!sqlite3_get_autocommit(s->db))
        return store__failm(s, HK_ESTATE, HK_MSG_STORE_MIGRATE_IN_TX);
    int cur = 0;
    int rc = store_schema_version(s, &cur);
    if (rc)
        return rc;
    if (cur > target)
        return store__failm(s, HK_EUNSUPPORTED, HK_MSG_STORE_SCHEMA_NEWER_THAN, cur, target);
    while (cur < target) {
        int next = cur + 1;
        /* IMMEDIATE: two processes opening an old database at once serialise here; the
         * loser re-reads the version below and finds the work done. */
        rc = store__exec(s, "BEGIN IMMEDIATE");
        if (rc)
            return rc;
        int now = 0;
        rc = store_schema_version(s, &now);
        if (rc == HK_OK && now == cur) {
            rc = store__exec(s, migrations[cur]);
            if (rc == HK_OK) {
                char pragma[64];
                snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", next);
                rc = store__exec(s, pragma);
            }
            if (rc) {
                char keep[sizeof s->err];
                memcpy(keep, s->err, sizeof keep);
                sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
                return store__failm(s, rc, HK_MSG_STORE_MIGRATION_FAILED, next, keep);
            }
        }
        if (rc == HK_OK)
            rc = store__exec(s, "COMMIT");
        if (rc) {
            if (!sqlite3_get_autocommit(s->db))
                sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
        rc = store_schema_version(s, &cur);
        if (rc)
            return rc;
        if (cur > target)
            return store__failm(s, HK_EUNSUPPORTED, HK_MSG_STORE_SCHEMA_NEWER, cur);
    }
    return HK_OK;
}

int store_set_busy_timeout(store *s, int ms)
{
    int rc = sqlite3_busy_timeout(s->db, ms < 0 ? 0 : ms);
    return rc == SQLITE_OK ? HK_OK : store__fail(s, rc, "busy timeout");
}

/* Creates the directories above path (mkdir -p), so a first run can open
 * ~/.local/share/hyperkernel/history.db without preparing anything. */
static int mkdir_parent(const char *path)
{
    char *d = hk_strdup(path);
    if (!d)
        return HK_ENOMEM;
    int rc = HK_OK;
    char *slash = strrchr(d, '/');
    if (slash && slash != d) {
        *slash = '\0';
        for (char *p = d + 1;; p++) {
            if (*p != '/' && *p != '\0')
                continue;
            char c = *p;
            *p = '\0';
            if (mkdir(d, 0755) != 0 && errno != EEXIST) {
                rc = HK_EIO;
                break;
            }
            *p = c;
            if (!c)
                break;
        }
    }
    hk_free(d);
    return rc;
}

int store_open_ex(const char *path, int max_version, store **out, char *err, size_t err_len)
{
    *out = NULL;
    if (err && err_len)
        err[0] = '\0';
    if (max_version == 0)
        max_version = STORE_SCHEMA_VERSION;
    if (!path || max_version < 1 || max_version > STORE_SCHEMA_VERSION) {
        if (err && err_len)
            snprintf(err, err_len, "bad store_open arguments");
        return HK_EINVAL;
    }
    if (!sqlite3_threadsafe())
        return HK_EUNSUPPORTED; /* the handle may move between threads (store.h) */
    store *s = hk_calloc(1, sizeof *s);
    if (!s)
        return HK_ENOMEM;
    int ret;
    sqlite3_stmt *st = NULL;
    if (strcmp(path, ":memory:") != 0 && strncmp(path, "file:", 5) != 0) {
        ret = mkdir_parent(path);
        if (ret) {
            store__failm(s, ret, HK_MSG_STORE_CANNOT_CREATE_DIR, path);
            goto out;
        }
    }
    /* NOMUTEX: the contract is one thread at a time per handle, so SQLite's per-connection
     * mutex buys nothing; the library itself stays thread-safe for several handles. */
    int rc = sqlite3_open_v2(path, &s->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        ret = store__fail(s, rc, path);
        goto out;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    /* Reading the journal mode also proves the file is a database. */
    ret = store__prepare(s, "PRAGMA journal_mode = WAL", &st);
    if (ret)
        goto out;
    /* Two processes opening a database that does not exist yet (an episode's worker
     * creating it while the editor's server looks for the worker's row) both try to put
     * it in WAL mode, and SQLite answers one of them SQLITE_BUSY without calling the busy
     * handler (it would deadlock); so the switch is retried here, up to the busy timeout.
     * Four processes opening a fresh file at once: 10 of 400 opens failed "database is
     * locked" before (tests/unit/test_store.c, fresh_file_opened_at_once). */
    for (int waited_ms = 0;; waited_ms += STORE_OPEN_RETRY_MS) {
        rc = sqlite3_step(st);
        if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= STORE_BUSY_TIMEOUT_MS)
            break;
        sqlite3_reset(st);
        sqlite3_sleep(STORE_OPEN_RETRY_MS);
    }
    if (rc != SQLITE_ROW) {
        ret = store__fail(s, rc, path);
        sqlite3_finalize(st);
        goto out;
    }
    const char *mode = (const char *)sqlite3_column_text(st, 0);
    bool ok_mode = mode && (strcmp(mode, "wal") == 0 || strcmp(mode, "memory") == 0);
    char got[32];
    snprintf(got, sizeof got, "%s", mode ? mode : "?");
    sqlite3_finalize(st);
    if (!ok_mode) {
        ret = store__failm(s, HK_EDB, HK_MSG_STORE_NO_WAL, path, got);
        goto out;
    }
    /* NORMAL is safe in WAL mode against a killed process (only a power loss may drop the
     * last commits) and avoids an fsync per event. */
    ret = store__exec(s, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL");
    if (ret)
        goto out;
    ret = store_migrate(s, max_version);
out:
    if (ret) {
        /* The handle dies here: its message goes to the caller's buffer. */
        if (err && err_len)
            snprintf(err, err_len, "%s", s->err[0] ? s->err : hk_strerror(ret));
        sqlite3_close_v2(s->db);
        hk_free(s);
        return ret;
    }
    *out = s;
    return HK_OK;
}

int store_open(const char *path, store **out) { return store_open_ex(path, 0, out, NULL, 0); }

int store_open_version(const char *path, int max_version, store **out)
{
    return max_version ? store_open_ex(path, max_version, out, NULL, 0) : HK_EINVAL;
}

void store_close(store *s)
{
    if (!s)
        return;
    if (s->db && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close_v2(s->db);
    hk_free(s);
}

int store_tx_begin(store *s)
{
    if (s->user_tx || !sqlite3_get_autocommit(s->db))
        return store__failm(s, HK_ESTATE, HK_MSG_STORE_TX_ALREADY_OPEN);
    int rc = store__exec(s, "BEGIN IMMEDIATE");
    if (rc == HK_OK)
        s->user_tx = true;
    return rc;
}

int store_tx_commit(store *s)
{
    if (!s->user_tx)
        return store__failm(s, HK_ESTATE, HK_MSG_STORE_NO_OPEN_TX);
    s->user_tx = false;
    int rc = store__exec(s, "COMMIT");
    if (rc && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int store_tx_rollback(store *s)
{
    if (!s->user_tx)
        return store__failm(s, HK_ESTATE, HK_MSG_STORE_NO_OPEN_TX);
    s->user_tx = false;
    if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return HK_OK;
}

/* ---- kernels ---- */

void store_kernel_clear(store_kernel *k)
{
    if (!k)
        return;
    hk_free(k->file);
    hk_free(k->name);
    hk_free(k->content_hash);
    memset(k, 0, sizeof *k);
}

void store_kernels_free(store_kernel *ks, size_t n)
{
    for (size_t i = 0; ks && i < n; i++)
        store_kernel_clear(&ks[i]);
    hk_free(ks);
}

int store_kernel_find(store *s, const char *file, const char *name, int64_t *id_out)
{
    *id_out = 0;
    if (!file || !name)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_KERNEL_FILE_NAME_REQUIRED);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, "SELECT id FROM kernels WHERE file = ?1 AND name = ?2", &st); /* i18n: not for people (SQL) */
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        *id_out = sqlite3_column_int64(st, 0);
    else if (r == SQLITE_DONE)
        rc = store__failm(s, HK_ENOENT, HK_MSG_STORE_NO_KERNEL_IN, name, file);
    else
        rc = store__fail(s, r, "find kernel");
    sqlite3_finalize(st);
    return rc;
}

int store_kernel_upsert(store *s, const char *file, const char *name, const char *content_hash,
                        int64_t *id_out)
{
    *id_out = 0;
    if (!file || !name || !*file || !*name)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_KERNEL_FILE_NAME_REQUIRED);
    int token, rc = store__tx_enter(s, &token);
    if (rc)
        return rc;
    sqlite3_stmt *st = NULL;
    rc = store__prepare(s,
                        "INSERT INTO kernels(file, name, content_hash, created_ms)" /* i18n: not for people (SQL) */
                        " VALUES(?1, ?2, COALESCE(?3, ''), ?4)"
                        " ON CONFLICT(file, name) DO UPDATE SET"
                        "  content_hash = COALESCE(?3, content_hash)",
                        &st);
    if (rc == HK_OK) {
        sqlite3_bind_text(st, 1, file, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
        store__bind_str(st, 3, content_hash);
        sqlite3_bind_int64(st, 4, store_now_ms());
        rc = store__exec_stmt(s, st, "upsert kernel");
    }
    if (rc == HK_OK)
        rc = store_kernel_find(s, file, name, id_out);
    return store__tx_leave(s, token, rc);
}

static int kernel_row(sqlite3_stmt *st, store_kernel *k)
{
    memset(k, 0, sizeof *k);
    k->id = sqlite3_column_int64(st, 0);
    k->created_ms = sqlite3_column_int64(st, 4);
    int rc = store__col_str(st, 1, &k->file);
    if (!rc)
        rc = store__col_str(st, 2, &k->name);
    if (!rc)
        rc = store__col_str(st, 3, &k->content_hash);
    if (rc)
        store_kernel_clear(k);
    return rc;
}

int store_kernel_get(store *s, int64_t id, store_kernel *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(
        s, "SELECT id, file, name, content_hash, created_ms FROM kernels WHERE id = ?1", &st); /* i18n: not for people (SQL) */
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        rc = kernel_row(st, out);
    else if (r == SQLITE_DONE)
        rc = store__failm(s, HK_ENOENT, HK_MSG_STORE_NO_KERNEL, (long long)id);
    else
        rc = store__fail(s, r, "get kernel");
    sqlite3_finalize(st);
    return rc;
}

int store_kernel_list(store *s, const char *file, store_kernel **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "SELECT id, file, name, content_hash, created_ms FROM kernels" /* i18n: not for people (SQL) */
                            " WHERE ?1 IS NULL OR file = ?1 ORDER BY file, name LIMIT 10000",
                            &st);
    if (rc)
        return rc;
    store__bind_str(st, 1, file);
    store_kernel *arr = NULL;
    size_t n = 0, cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = store__grow((void **)&arr, &cap, n, sizeof *arr, 10000);
        if (!rc)
            rc = kernel_row(st, &arr[n]);
        if (rc)
            goto out;
        n++;
    }
    if (r != SQLITE_DONE)
        rc = store__fail(s, r, "list kernels");
out:
    sqlite3_finalize(st);
    if (rc) {
        store_kernels_free(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}

/* ---- devices ---- */

void store_device_clear(store_device *d)
{
    if (!d)
        return;
    hk_free(d->name);
    hk_free(d->cc);
    hk_free(d->peaks_json);
    memset(d, 0, sizeof *d);
}

int store_device_put(store *s, const char *name, const char *cc, const char *peaks_json)
{
    if (!name || !*name || !peaks_json)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_DEVICE_NAME_PEAKS_REQUIRED);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "INSERT OR REPLACE INTO devices(name, cc, peaks_json, measured_ms)" /* i18n: not for people (SQL) */
                            " VALUES(?1, COALESCE(?2, ''), ?3, ?4)",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    store__bind_str(st, 2, cc);
    sqlite3_bind_text(st, 3, peaks_json, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, store_now_ms());
    return store__exec_stmt(s, st, "put device");
}

int store_device_get(store *s, const char *name, store_device *out)
{
    memset(out, 0, sizeof *out);
    if (!name)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_DEVICE_NAME_REQUIRED);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(
        s, "SELECT name, cc, peaks_json, measured_ms FROM devices WHERE name = ?1", &st); /* i18n: not for people (SQL) */
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        out->measured_ms = sqlite3_column_int64(st, 3);
        rc = store__col_str(st, 0, &out->name);
        if (!rc)
            rc = store__col_str(st, 1, &out->cc);
        if (!rc)
            rc = store__col_str(st, 2, &out->peaks_json);
        if (rc)
            store_device_clear(out);
    } else if (r == SQLITE_DONE) {
        rc = store__failm(s, HK_ENOENT, HK_MSG_STORE_DEVICE_NEVER_MEASURED, name);
    } else {
        rc = store__fail(s, r, "get device");
    }
    sqlite3_finalize(st);
    return rc;
}
