/* The skills' record (schema v3, table skill_results): each try of a skill on a kernel
 * and arch, whether it helped and by how much, and the per-skill summary the skills
 * module orders by. Contracts: store.h, "skills' record". */
#include "store/store_impl.h"

#include <math.h>
#include <string.h>

#include "core/hk.h"

/* Rows returned to callers are capped like every other list in the store. */
#define SKILL_ROWS_MAX 10000

int store_skill_record(store *s, const char *skill_id, const char *kernel,
                       const char *kernel_hash, const char *hardware, bool helped,
                       double speedup)
{
    if (!skill_id || !*skill_id || !kernel || !*kernel || !hardware || !*hardware)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_SKILL_RECORD_NEEDS);
    /* "helped" is the caller's verdict after verification; a speedup that does not back
     * it would poison the ordering, so it is refused rather than stored. */
    if (helped && !(isfinite(speedup) && speedup > 1.0))
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_SKILL_HELPED_SPEEDUP, skill_id, speedup);
    if (!isfinite(speedup) || speedup <= 0)
        speedup = NAN;
    sqlite3_stmt *st = NULL;
    /* One statement: the upsert is atomic without an explicit transaction. max() of
     * SQLite returns NULL when an argument is NULL, hence the CASE for best_speedup. */
    int rc = store__prepare(
        s,
        "INSERT INTO skill_results(skill_id, kernel, kernel_hash, hardware, tried, helped," /* i18n: not for people (SQL) */
        "  best_speedup, helped_speedup_sum, last_ms)"
        " VALUES(?1, ?2, COALESCE(?3, ''), ?4, 1, ?5, ?6, CASE WHEN ?5 THEN ?6 ELSE 0 END, ?7)"
        " ON CONFLICT(skill_id, kernel, kernel_hash, hardware) DO UPDATE SET"
        "  tried = tried + 1,"
        "  helped = helped + excluded.helped,"
        "  best_speedup = CASE WHEN excluded.best_speedup IS NULL THEN best_speedup"
        "    WHEN best_speedup IS NULL OR excluded.best_speedup > best_speedup"
        "    THEN excluded.best_speedup ELSE best_speedup END,"
        "  helped_speedup_sum = helped_speedup_sum + excluded.helped_speedup_sum,"
        "  last_ms = excluded.last_ms",
        &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, skill_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, kernel, -1, SQLITE_STATIC);
    store__bind_str(st, 3, kernel_hash);
    sqlite3_bind_text(st, 4, hardware, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, helped ? 1 : 0);
    store__bind_double(st, 6, speedup);
    sqlite3_bind_int64(st, 7, store_now_ms());
    return store__exec_stmt(s, st, hk_tr(HK_MSG_STORE_RECORD_SKILL_RESULT));
}

void store_skill_results_free(store_skill_result *r, size_t n)
{
    if (!r)
        return;
    for (size_t i = 0; i < n; i++) {
        hk_free(r[i].skill_id);
        hk_free(r[i].kernel);
        hk_free(r[i].kernel_hash);
        hk_free(r[i].hardware);
    }
    hk_free(r);
}

int store_skill_results(store *s, const char *skill_id, const char *hardware,
                        store_skill_result **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(
        s,
        "SELECT skill_id, kernel, kernel_hash, hardware, tried, helped, best_speedup," /* i18n: not for people (SQL) */
        "  CASE WHEN helped > 0 THEN helped_speedup_sum / helped END, last_ms"
        " FROM skill_results WHERE (?1 IS NULL OR skill_id = ?1)"
        " AND (?2 IS NULL OR hardware = ?2)"
        " ORDER BY skill_id, best_speedup IS NULL, best_speedup DESC, kernel LIMIT 10000",
        &st);
    if (rc)
        return rc;
    store__bind_str(st, 1, skill_id);
    store__bind_str(st, 2, hardware);
    store_skill_result *arr = NULL;
    size_t n = 0, cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = store__grow((void **)&arr, &cap, n, sizeof *arr, SKILL_ROWS_MAX);
        if (rc)
            goto out;
        store_skill_result *row = &arr[n];
        memset(row, 0, sizeof *row);
        n++;
        row->tried = sqlite3_column_int64(st, 4);
        row->helped = sqlite3_column_int64(st, 5);
        row->best_speedup = store__col_double(st, 6);
        row->mean_speedup = store__col_double(st, 7);
        row->last_ms = sqlite3_column_int64(st, 8);
        rc = store__col_str(st, 0, &row->skill_id);
        if (!rc)
            rc = store__col_str(st, 1, &row->kernel);
        if (!rc)
            rc = store__col_str(st, 2, &row->kernel_hash);
        if (!rc)
            rc = store__col_str(st, 3, &row->hardware);
        if (rc)
            goto out;
    }
    if (r != SQLITE_DONE)
        rc = store__fail(s, r, hk_tr(HK_MSG_STORE_LIST_SKILL_RESULTS));
out:
    sqlite3_finalize(st);
    if (rc) {
        store_skill_results_free(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}

void store_skill_stats_free(store_skill_stat *st, size_t n)
{
    if (!st)
        return;
    for (size_t i = 0; i < n; i++)
        hk_free(st[i].skill_id);
    hk_free(st);
}

int store_skill_stats(store *s, const char *hardware, store_skill_stat **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st = NULL;
    /* kernels counts distinct (kernel, hash) pairs: the same kernel on two arches is one
     * kernel when hardware is NULL. */
    int rc = store__prepare(
        s,
        "SELECT skill_id, SUM(tried), SUM(helped)," /* i18n: not for people (SQL) */
        "  COUNT(DISTINCT kernel || char(0) || kernel_hash),"
        "  COUNT(DISTINCT CASE WHEN helped > 0 THEN kernel || char(0) || kernel_hash END),"
        "  MAX(best_speedup),"
        "  CASE WHEN SUM(helped) > 0 THEN SUM(helped_speedup_sum) / SUM(helped) END,"
        "  MAX(last_ms)"
        " FROM skill_results WHERE ?1 IS NULL OR hardware = ?1"
        " GROUP BY skill_id ORDER BY skill_id LIMIT 10000",
        &st);
    if (rc)
        return rc;
    store__bind_str(st, 1, hardware);
    store_skill_stat *arr = NULL;
    size_t n = 0, cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = store__grow((void **)&arr, &cap, n, sizeof *arr, SKILL_ROWS_MAX);
        if (rc)
            goto out;
        store_skill_stat *row = &arr[n];
        memset(row, 0, sizeof *row);
        n++;
        row->tried = sqlite3_column_int64(st, 1);
        row->helped = sqlite3_column_int64(st, 2);
        row->kernels = sqlite3_column_int64(st, 3);
        row->kernels_helped = sqlite3_column_int64(st, 4);
        row->best_speedup = store__col_double(st, 5);
        row->mean_speedup = store__col_double(st, 6);
        row->last_ms = sqlite3_column_int64(st, 7);
        rc = store__col_str(st, 0, &row->skill_id);
        if (rc)
            goto out;
    }
    if (r != SQLITE_DONE)
        rc = store__fail(s, r, "skill stats");
out:
    sqlite3_finalize(st);
    if (rc) {
        store_skill_stats_free(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}
