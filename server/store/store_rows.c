/* Episodes, versions (the chain), measurements, evidence, events and the queries the
 * editor and the report need: episode list, stage timings, kernel history with speedups,
 * best verified version, and marking episodes whose worker died as interrupted. */
#include "store/store_impl.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"

#include <jansson.h>

#define LIST_MAX 100000

/* ---- episodes ---- */

#define EPISODE_COLS                                                                          \
    "e.id, e.name, e.kernel_id, k.file, k.name, e.target, e.backend, e.arch, e.engine,"       \
    " e.device, e.status, e.started_ms, e.ended_ms, e.budget_json, e.info_json, e.pid,"      \
    " e.report_json, e.report_md, e.report_html, e.error, e.best_version_id,"                \
    " e.baseline_version_id FROM episodes e JOIN kernels k ON k.id = e.kernel_id "

void store_episode_clear(store_episode *e)
{
    if (!e)
        return;
    char **strs[] = {&e->name,    &e->file,        &e->kernel,    &e->target,
                     &e->backend, &e->arch,        &e->engine,    &e->device,
                     &e->budget_json, &e->info_json, &e->report_json, &e->report_md,
                     &e->report_html, &e->error};
    for (size_t i = 0; i < HK_ARRAY_LEN(strs); i++)
        hk_free(*strs[i]);
    memset(e, 0, sizeof *e);
}

void store_episodes_free(store_episode *es, size_t n)
{
    for (size_t i = 0; es && i < n; i++)
        store_episode_clear(&es[i]);
    hk_free(es);
}

static int episode_row(store *s, sqlite3_stmt *st, store_episode *e)
{
    memset(e, 0, sizeof *e);
    e->id = sqlite3_column_int64(st, 0);
    e->kernel_id = sqlite3_column_int64(st, 2);
    e->started_ms = sqlite3_column_int64(st, 11);
    e->ended_ms = sqlite3_column_int64(st, 12);
    e->pid = sqlite3_column_int(st, 15);
    e->best_version_id = sqlite3_column_int64(st, 20);
    e->baseline_version_id = sqlite3_column_int64(st, 21);
    if (store_episode_status_parse((const char *)sqlite3_column_text(st, 10), &e->status))
        return store__failm(s, HK_EDB, HK_MSG_STORE_EP_UNKNOWN_STATUS, (long long)e->id);
    struct {
        int col;
        char **dst;
    } strs[] = {{1, &e->name},         {3, &e->file},       {4, &e->kernel},
                {5, &e->target},       {6, &e->backend},    {7, &e->arch},
                {8, &e->engine},       {9, &e->device},     {13, &e->budget_json},
                {14, &e->info_json},   {16, &e->report_json}, {17, &e->report_md},
                {18, &e->report_html}, {19, &e->error}};
    for (size_t i = 0; i < HK_ARRAY_LEN(strs); i++) {
        if (store__col_str(st, strs[i].col, strs[i].dst)) {
            store_episode_clear(e);
            return store__failm(s, HK_ENOMEM, HK_MSG_STORE_OOM_READING_EPISODE);
        }
    }
    return HK_OK;
}

/* /proc/PID/stat: the process state letter and its start time in clock ticks since boot
 * (field 22), which tells a live worker from a later process that reused its pid. */
static bool proc_stat(int pid, char *state, long long *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The command name (field 2) may hold spaces and parentheses: skip to the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return false;
    int field = 2;
    char *save = NULL;
    *state = '?';
    *start = 0;
    for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        field++;
        if (field == 3)
            *state = tok[0];
        if (field == 22) {
            *start = strtoll(tok, NULL, 10);
            return true;
        }
    }
    return false;
}

static bool worker_alive(int pid, long long pid_start)
{
    if (pid <= 0)
        return false;
    if (kill(pid, 0) != 0 && errno != EPERM)
        return false;
    char state;
    long long start;
    if (proc_stat(pid, &state, &start)) {
        if (state == 'Z' || state == 'X')
            return false; /* exited, not yet reaped */
        if (pid_start && start && start != pid_start)
            return false; /* pid reused by a later process */
    }
    return true;
}

int store_episode_create(store *s, const store_episode_new *in, int64_t *id_out)
{
    *id_out = 0;
    if (!in)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_NO_EPISODE_GIVEN);
    store_kernel k = {0};
    char *name = NULL;
    int rc = store_kernel_get(s, in->kernel_id, &k);
    if (rc == HK_ENOENT)
        rc = store__failm(s, HK_EINVAL, HK_MSG_STORE_EP_UNKNOWN_KERNEL,
                          (long long)in->kernel_id);
    if (rc)
        goto out;
    if (in->name && *in->name) {
        name = hk_strdup(in->name);
    } else {
        const char *where = in->arch && *in->arch     ? in->arch
                            : in->target && *in->target ? in->target
                            : in->backend && *in->backend ? in->backend
                                                          : NULL;
        name = where ? hk_asprintf("%s %s", k.name, where) : hk_strdup(k.name);
    }
    if (!name) {
        rc = store__failm(s, HK_ENOMEM, HK_MSG_STORE_OOM);
        goto out;
    }
    char state;
    long long start = 0;
    if (in->pid <= 0 || !proc_stat(in->pid, &state, &start))
        start = 0;
    sqlite3_stmt *st = NULL;
    rc = store__prepare(s,
                        "INSERT INTO episodes(name, kernel_id, target, backend, arch, engine," /* i18n: not for people */
                        " status, started_ms, budget_json, pid, pid_start)"
                        " VALUES(?1, ?2, COALESCE(?3, ''), COALESCE(?4, ''), COALESCE(?5, ''),"
                        " COALESCE(?6, ''), 'running', ?7, ?8, ?9, ?10)",
                        &st);
    if (rc)
        goto out;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, in->kernel_id);
    store__bind_str(st, 3, in->target);
    store__bind_str(st, 4, in->backend);
    store__bind_str(st, 5, in->arch);
    store__bind_str(st, 6, in->engine);
    sqlite3_bind_int64(st, 7, store_now_ms());
    store__bind_str(st, 8, in->budget_json);
    sqlite3_bind_int(st, 9, in->pid > 0 ? in->pid : 0);
    sqlite3_bind_int64(st, 10, start);
    rc = store__exec_stmt(s, st, "create episode");
    if (rc == HK_OK)
        *id_out = sqlite3_last_insert_rowid(s->db);
out:
    hk_free(name);
    store_kernel_clear(&k);
    return rc;
}

/* HK_ENOENT when no episode id, else HK_OK; for telling "absent" from "refused". */
static int episode_exists(store *s, int64_t id)
{
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, "SELECT 1 FROM episodes WHERE id = ?1", &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int r = sqlite3_step(st);
    if (r == SQLITE_DONE)
        rc = store__failm(s, HK_ENOENT, HK_MSG_STORE_NO_EPISODE, (long long)id);
    else if (r != SQLITE_ROW)
        rc = store__fail(s, r, "find episode");
    sqlite3_finalize(st);
    return rc;
}

/* Runs an UPDATE of one episode (?1 is its id, already bound by the caller); no row
 * changed means the episode is absent (HK_ENOENT) or, when it exists, refused_code. */
static int episode_update(store *s, sqlite3_stmt *st, int64_t id, int refused_code,
                          enum hk_msg refused)
{
    int rc = store__exec_stmt(s, st, "update episode");
    if (rc)
        return rc;
    if (sqlite3_changes(s->db) > 0)
        return HK_OK;
    rc = episode_exists(s, id);
    if (rc)
        return rc;
    return store__failm(s, refused_code, HK_MSG_STORE_EP_REFUSED, (long long)id, hk_tr(refused));
}

int store_episode_finish(store *s, int64_t id, enum store_episode_status status,
                         const char *error)
{
    if (status == STORE_EP_RUNNING || (unsigned)status > STORE_EP_INTERRUPTED)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_EP_FINISH_NEEDS_END);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "UPDATE episodes SET status = ?2, ended_ms = ?3, error = ?4" /* i18n: not for people */
                            " WHERE id = ?1 AND status = 'running'",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, store_episode_status_name(status), -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, store_now_ms());
    store__bind_str(st, 4, error);
    return episode_update(s, st, id, HK_ESTATE, HK_MSG_STORE_EP_NOT_RUNNING);
}

int store_episode_set_status(store *s, int64_t id, enum store_episode_status status,
                             const char *error)
{
    if ((unsigned)status > STORE_EP_INTERRUPTED)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_EP_UNKNOWN_STATUS_CODE, (int)status);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, "UPDATE episodes SET status = ?2, ended_ms = ?3, error = ?4" /* i18n: not for people */
                               " WHERE id = ?1",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, store_episode_status_name(status), -1, SQLITE_STATIC);
    if (status == STORE_EP_RUNNING)
        sqlite3_bind_null(st, 3);
    else
        sqlite3_bind_int64(st, 3, store_now_ms());
    store__bind_str(st, 4, error);
    return episode_update(s, st, id, HK_EDB, HK_MSG_STORE_EP_NOT_UPDATED);
}

static int episode_set_version(store *s, int64_t id, const char *col, int64_t vid)
{
    char sql[256];
    /* col is one of two literals below, never input. */
    snprintf(sql, sizeof sql,
             "UPDATE episodes SET %s = ?2 WHERE id = ?1 AND (?2 IS NULL OR EXISTS(" /* i18n: not for people */
             "SELECT 1 FROM versions v WHERE v.id = ?2 AND v.kernel_id = episodes.kernel_id))",
             col);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, sql, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    store__bind_id(st, 2, vid);
    return episode_update(s, st, id, HK_EINVAL, HK_MSG_STORE_V_NOT_THIS_KERNEL);
}

int store_episode_set_baseline(store *s, int64_t id, int64_t version_id)
{
    return episode_set_version(s, id, "baseline_version_id", version_id);
}

int store_episode_set_best(store *s, int64_t id, int64_t version_id)
{
    return episode_set_version(s, id, "best_version_id", version_id);
}

static int episode_set_text(store *s, int64_t id, const char *col, const char *v)
{
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE episodes SET %s = ?2 WHERE id = ?1", col);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, sql, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    store__bind_str(st, 2, v);
    return episode_update(s, st, id, HK_EDB, HK_MSG_STORE_EP_NOT_UPDATED);
}

int store_episode_set_device(store *s, int64_t id, const char *device)
{
    return episode_set_text(s, id, "device", device);
}

int store_episode_set_info(store *s, int64_t id, const char *info_json)
{
    return episode_set_text(s, id, "info_json", info_json);
}

int store_episode_set_pid(store *s, int64_t id, int pid)
{
    char state;
    long long start = 0;
    if (pid <= 0 || !proc_stat(pid, &state, &start))
        start = 0;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, "UPDATE episodes SET pid = ?2, pid_start = ?3 WHERE id = ?1", /* i18n: not for people */ &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, pid > 0 ? pid : 0);
    sqlite3_bind_int64(st, 3, start);
    return episode_update(s, st, id, HK_EDB, HK_MSG_STORE_EP_NOT_UPDATED);
}

int store_episode_set_reports(store *s, int64_t id, const char *json_path, const char *md_path,
                              const char *html_path)
{
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "UPDATE episodes SET report_json = COALESCE(?2, report_json),"
                            " report_md = COALESCE(?3, report_md),"
                            " report_html = COALESCE(?4, report_html) WHERE id = ?1",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    store__bind_str(st, 2, json_path);
    store__bind_str(st, 3, md_path);
    store__bind_str(st, 4, html_path);
    return episode_update(s, st, id, HK_EDB, HK_MSG_STORE_EP_NOT_UPDATED);
}

int store_episode_get(store *s, int64_t id, store_episode *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, "SELECT " EPISODE_COLS "WHERE e.id = ?1", &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        rc = episode_row(s, st, out);
    else if (r == SQLITE_DONE)
        rc = store__failm(s, HK_ENOENT, HK_MSG_STORE_NO_EPISODE, (long long)id);
    else
        rc = store__fail(s, r, "get episode");
    sqlite3_finalize(st);
    return rc;
}

int store_episode_list(store *s, const store_episode_filter *f, store_episode **out,
                       size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    store_episode_filter none = {0};
    if (!f)
        f = &none;
    size_t limit = f->limit ? f->limit : 100;
    if (limit > 10000)
        limit = 10000;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(
        s,
        "SELECT " EPISODE_COLS
        "WHERE (?1 = 0 OR ((1 << CASE e.status WHEN 'running' THEN 0 WHEN 'completed' THEN 1" /* i18n: not for people (SQL) */
        "  WHEN 'stopped' THEN 2 WHEN 'failed' THEN 3 ELSE 4 END) & ?1) != 0)"
        " AND (?2 IS NULL OR k.file = ?2) AND (?3 IS NULL OR k.name = ?3)"
        " AND (?4 = 0 OR e.kernel_id = ?4)"
        " ORDER BY e.started_ms DESC, e.id DESC LIMIT ?5",
        &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, f->status_mask);
    store__bind_str(st, 2, f->file);
    store__bind_str(st, 3, f->kernel);
    sqlite3_bind_int64(st, 4, f->kernel_id);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)limit);
    store_episode *arr = NULL;
    size_t n = 0, cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = store__grow((void **)&arr, &cap, n, sizeof *arr, limit);
        if (rc) {
            store__failm(s, rc, HK_MSG_STORE_OOM_LISTING_EPISODES);
            goto out;
        }
        rc = episode_row(s, st, &arr[n]);
        if (rc)
            goto out;
        n++;
    }
    if (r != SQLITE_DONE)
        rc = store__fail(s, r, "list episodes");
out:
    sqlite3_finalize(st);
    if (rc) {
        store_episodes_free(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}

int store_mark_interrupted(store *s, size_t *n_marked)
{
    if (n_marked)
        *n_marked = 0;
    int token, rc = store__tx_enter(s, &token);
    if (rc)
        return rc;
    sqlite3_stmt *st = NULL, *up = NULL;
    struct running {
        int64_t id;
        int pid;
        long long start;
    } *arr = NULL;
    size_t n = 0, cap = 0, marked = 0;
    /* Collect first, update after: the scan must not run over rows it is changing. */
    rc = store__prepare(s, "SELECT id, pid, pid_start FROM episodes WHERE status = 'running'", /* i18n: not for people */
                        &st);
    if (rc)
        goto out;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = store__grow((void **)&arr, &cap, n, sizeof *arr, LIST_MAX);
        if (rc) {
            store__failm(s, rc, HK_MSG_STORE_LISTING_RUNNING);
            goto out;
        }
        arr[n].id = sqlite3_column_int64(st, 0);
        arr[n].pid = sqlite3_column_int(st, 1);
        arr[n].start = sqlite3_column_int64(st, 2);
        n++;
    }
    if (r != SQLITE_DONE) {
        rc = store__fail(s, r, hk_tr(HK_MSG_STORE_LIST_RUNNING));
        goto out;
    }
    rc = store__prepare(s,
                        "UPDATE episodes SET status = 'interrupted', ended_ms = ?2, error = ?3" /* i18n: not for people */
                        " WHERE id = ?1 AND status = 'running'",
                        &up);
    for (size_t i = 0; rc == HK_OK && i < n; i++) {
        if (worker_alive(arr[i].pid, arr[i].start))
            continue;
        char why[96];
        if (arr[i].pid > 0)
            snprintf(why, sizeof why, hk_tr_in(HK_LANG_EN, HK_MSG_STORE_INTERRUPTED_PID), arr[i].pid);
        else
            snprintf(why, sizeof why, "%s", hk_tr_in(HK_LANG_EN, HK_MSG_STORE_INTERRUPTED_NO_PID));
        sqlite3_reset(up);
        sqlite3_bind_int64(up, 1, arr[i].id);
        sqlite3_bind_int64(up, 2, store_now_ms());
        sqlite3_bind_text(up, 3, why, -1, SQLITE_TRANSIENT);
        int u = sqlite3_step(up);
        if (u != SQLITE_DONE)
            rc = store__fail(s, u, "mark interrupted");
        else
            marked++;
    }
out:
    sqlite3_finalize(st);
    sqlite3_finalize(up);
    hk_free(arr);
    rc = store__tx_leave(s, token, rc);
    if (rc == HK_OK && n_marked)
        *n_marked = marked;
    return rc;
}

/* ---- versions ---- */

#define VERSION_COLS_NO_SOURCE                                                                \
    "id, episode_id, kernel_id, parent_id, number, NULL, launch_json, content_hash, status," /* i18n: not for people (SQL) */ \
    " reject_reason, reject_details, produced_by, max_abs_err, max_rel_err, created_ms "
#define VERSION_COLS                                                                          \
    "id, episode_id, kernel_id, parent_id, number, source, launch_json, content_hash," /* i18n: not for people (SQL) */ \
    " status, reject_reason, reject_details, produced_by, max_abs_err, max_rel_err,"         \
    " created_ms "

void store_version_clear(store_version *v)
{
    if (!v)
        return;
    hk_free(v->source);
    hk_free(v->launch_json);
    hk_free(v->content_hash);
    hk_free(v->reject_reason);
    hk_free(v->reject_details);
    hk_free(v->produced_by);
    memset(v, 0, sizeof *v);
}

static int version_status_parse(const char *t, enum store_version_status *out)
{
    for (int i = STORE_V_CANDIDATE; t && i <= STORE_V_REJECTED; i++) {
        if (strcmp(t, store_version_status_name((enum store_version_status)i)) == 0) {
            *out = (enum store_version_status)i;
            return HK_OK;
        }
    }
    return HK_EINVAL;
}

static int version_row(store *s, sqlite3_stmt *st, store_version *v)
{
    memset(v, 0, sizeof *v);
    v->id = sqlite3_column_int64(st, 0);
    v->episode_id = sqlite3_column_int64(st, 1);
    v->kernel_id = sqlite3_column_int64(st, 2);
    v->parent_id = sqlite3_column_int64(st, 3);
    v->number = sqlite3_column_int(st, 4);
    v->max_abs_err = store__col_double(st, 12);
    v->max_rel_err = store__col_double(st, 13);
    v->created_ms = sqlite3_column_int64(st, 14);
    if (version_status_parse((const char *)sqlite3_column_text(st, 8), &v->status))
        return store__failm(s, HK_EDB, HK_MSG_STORE_V_UNKNOWN_STATUS, (long long)v->id);
    struct {
        int col;
        char **dst;
    } strs[] = {{5, &v->source},         {6, &v->launch_json},     {7, &v->content_hash},
                {9, &v->reject_reason},  {10, &v->reject_details}, {11, &v->produced_by}};
    for (size_t i = 0; i < HK_ARRAY_LEN(strs); i++) {
        if (store__col_str(st, strs[i].col, strs[i].dst)) {
            store_version_clear(v);
            return store__failm(s, HK_ENOMEM, HK_MSG_STORE_OOM_READING_VERSION);
        }
    }
    return HK_OK;
}

/* Reads one int64 from a one-row query with ?1 bound to key; HK_ENOENT for no row. */
static int query_id(store *s, const char *sql, int64_t key, int64_t *out)
{
    *out = 0;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, sql, &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, key);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else if (r == SQLITE_DONE)
        rc = HK_ENOENT;
    else
        rc = store__fail(s, r, "query");
    sqlite3_finalize(st);
    return rc;
}

int store_version_add(store *s, const store_version_new *in, int64_t *id_out)
{
    *id_out = 0;
    if (!in || !in->source)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_V_NEEDS_SOURCE);
    if ((unsigned)in->status > STORE_V_REJECTED)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_V_UNKNOWN_STATUS_CODE, (int)in->status);
    char hash[STORE_HASH_HEX];
    store_content_hash(in->source, strlen(in->source), hash);
    int token, rc = store__tx_enter(s, &token);
    if (rc)
        return rc;
    int64_t kernel_id = 0, parent_kernel = 0, number = 0;
    sqlite3_stmt *st = NULL;
    rc = query_id(s, "SELECT kernel_id FROM episodes WHERE id = ?1", in->episode_id, &kernel_id);
    if (rc == HK_ENOENT)
        rc = store__failm(s, HK_EINVAL, HK_MSG_STORE_V_UNKNOWN_EPISODE,
                          (long long)in->episode_id);
    if (rc)
        goto out;
    if (in->parent_id) {
        rc = query_id(s, "SELECT kernel_id FROM versions WHERE id = ?1", in->parent_id,
                      &parent_kernel);
        if (rc == HK_ENOENT || (rc == HK_OK && parent_kernel != kernel_id))
            rc = store__failm(s, HK_EINVAL, HK_MSG_STORE_V_PARENT_OTHER_KERNEL,
                              (long long)in->parent_id);
        if (rc)
            goto out;
    }
    /* Inside the write transaction, so two workers on one kernel cannot take one number. */
    rc = query_id(s, "SELECT COALESCE(MAX(number), -1) + 1 FROM versions WHERE kernel_id = ?1",
                  kernel_id, &number);
    if (rc)
        goto out;
    rc = store__prepare(s,
                        "INSERT INTO versions(episode_id, kernel_id, parent_id, number, source," /* i18n: not for people (SQL) */
                        " launch_json, content_hash, status, produced_by, created_ms)"
                        " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                        &st);
    if (rc)
        goto out;
    sqlite3_bind_int64(st, 1, in->episode_id);
    sqlite3_bind_int64(st, 2, kernel_id);
    store__bind_id(st, 3, in->parent_id);
    sqlite3_bind_int64(st, 4, number);
    sqlite3_bind_text(st, 5, in->source, -1, SQLITE_STATIC);
    store__bind_str(st, 6, in->launch_json);
    sqlite3_bind_text(st, 7, hash, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, store_version_status_name(in->status), -1, SQLITE_STATIC);
    store__bind_str(st, 9, in->produced_by);
    sqlite3_bind_int64(st, 10, store_now_ms());
    rc = store__exec_stmt(s, st, "add version");
    if (rc == HK_OK)
        *id_out = sqlite3_last_insert_rowid(s->db);
out:
    rc = store__tx_leave(s, token, rc);
    if (rc)
        *id_out = 0;
    return rc;
}

/* Runs an UPDATE of one version; no row changed means it is absent. */
static int version_update(store *s, sqlite3_stmt *st, int64_t id)
{
    int rc = store__exec_stmt(s, st, "update version");
    if (rc == HK_OK && sqlite3_changes(s->db) == 0)
        rc = store__failm(s, HK_ENOENT, HK_MSG_STORE_NO_VERSION, (long long)id);
    return rc;
}

int store_version_set_status(store *s, int64_t id, enum store_version_status status,
                             const char *reason, const char *details)
{
    if ((unsigned)status > STORE_V_REJECTED)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_V_UNKNOWN_STATUS_CODE, (int)status);
    bool rejected = status == STORE_V_REJECTED;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "UPDATE versions SET status = ?2, reject_reason = ?3," /* i18n: not for people (SQL) */
                            " reject_details = ?4 WHERE id = ?1",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, store_version_status_name(status), -1, SQLITE_STATIC);
    store__bind_str(st, 3, rejected ? reason : NULL);
    store__bind_str(st, 4, rejected ? details : NULL);
    return version_update(s, st, id);
}

int store_version_set_accuracy(store *s, int64_t id, double max_abs_err, double max_rel_err)
{
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, "UPDATE versions SET max_abs_err = ?2, max_rel_err = ?3"
                               " WHERE id = ?1",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    store__bind_double(st, 2, max_abs_err);
    store__bind_double(st, 3, max_rel_err);
    return version_update(s, st, id);
}

int store_version_get(store *s, int64_t id, store_version *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s, "SELECT " VERSION_COLS "FROM versions WHERE id = ?1", &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        rc = version_row(s, st, out);
    else if (r == SQLITE_DONE)
        rc = store__failm(s, HK_ENOENT, HK_MSG_STORE_NO_VERSION, (long long)id);
    else
        rc = store__fail(s, r, "get version");
    sqlite3_finalize(st);
    return rc;
}

int store_version_find_by_hash(store *s, int64_t kernel_id, const char *content_hash,
                               int64_t *id_out)
{
    *id_out = 0;
    if (!content_hash)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_NO_HASH);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "SELECT id FROM versions WHERE kernel_id = ?1 AND content_hash = ?2" /* i18n: not for people (SQL) */
                            " ORDER BY id DESC LIMIT 1",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, kernel_id);
    sqlite3_bind_text(st, 2, content_hash, -1, SQLITE_STATIC);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW)
        *id_out = sqlite3_column_int64(st, 0);
    else if (r == SQLITE_DONE)
        rc = store__failm(s, HK_ENOENT, HK_MSG_STORE_NO_VERSION_WITH_HASH);
    else
        rc = store__fail(s, r, "find version");
    sqlite3_finalize(st);
    return rc;
}

/* ---- measurements ---- */

#define MEASUREMENT_COLS                                                                      \
    "id, version_id, episode_id, kind, median_ms, p10_ms, p90_ms, spread, reps," /* i18n: not for people (SQL) */ \
    " bytes_per_s, flop_per_s, roofline_pct, size_key, raw_json, created_ms "

void store_measurement_clear(store_measurement *m)
{
    if (!m)
        return;
    hk_free(m->size_key);
    hk_free(m->raw_json);
    memset(m, 0, sizeof *m);
}

void store_measurements_free(store_measurement *ms, size_t n)
{
    for (size_t i = 0; ms && i < n; i++)
        store_measurement_clear(&ms[i]);
    hk_free(ms);
}

static int measurement_row(store *s, sqlite3_stmt *st, store_measurement *m)
{
    memset(m, 0, sizeof *m);
    m->id = sqlite3_column_int64(st, 0);
    m->version_id = sqlite3_column_int64(st, 1);
    m->episode_id = sqlite3_column_int64(st, 2);
    const char *kind = (const char *)sqlite3_column_text(st, 3);
    int k;
    for (k = STORE_M_BASELINE; k <= STORE_M_VERIFY; k++)
        if (kind && strcmp(kind, store_measure_kind_name((enum store_measure_kind)k)) == 0)
            break;
    if (k > STORE_M_VERIFY)
        return store__failm(s, HK_EDB, HK_MSG_STORE_M_UNKNOWN_KIND, (long long)m->id);
    m->kind = (enum store_measure_kind)k;
    m->median_ms = store__col_double(st, 4);
    m->p10_ms = store__col_double(st, 5);
    m->p90_ms = store__col_double(st, 6);
    m->spread = store__col_double(st, 7);
    m->reps = sqlite3_column_int(st, 8);
    m->bytes_per_s = store__col_double(st, 9);
    m->flop_per_s = store__col_double(st, 10);
    m->roofline_pct = store__col_double(st, 11);
    m->created_ms = sqlite3_column_int64(st, 14);
    if (store__col_str(st, 12, &m->size_key) || store__col_str(st, 13, &m->raw_json)) {
        store_measurement_clear(m);
        return store__failm(s, HK_ENOMEM, HK_MSG_STORE_OOM_READING_MEASUREMENT);
    }
    return HK_OK;
}

int store_measurement_add(store *s, const store_measurement *m, int64_t *id_out)
{
    if (id_out)
        *id_out = 0;
    if (!m || !isfinite(m->median_ms) || m->median_ms <= 0)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_M_NEEDS_MEDIAN);
    if ((unsigned)m->kind > STORE_M_VERIFY)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_M_UNKNOWN_KIND_CODE, (int)m->kind);
    double spread = m->spread;
    if (!isfinite(spread) && isfinite(m->p10_ms) && isfinite(m->p90_ms))
        spread = (m->p90_ms - m->p10_ms) / m->median_ms;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "INSERT INTO measurements(version_id, episode_id, kind, median_ms," /* i18n: not for people (SQL) */
                            " p10_ms, p90_ms, spread, reps, bytes_per_s, flop_per_s,"
                            " roofline_pct, size_key, raw_json, created_ms)"
                            " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, m->version_id);
    sqlite3_bind_int64(st, 2, m->episode_id);
    sqlite3_bind_text(st, 3, store_measure_kind_name(m->kind), -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 4, m->median_ms);
    store__bind_double(st, 5, m->p10_ms);
    store__bind_double(st, 6, m->p90_ms);
    store__bind_double(st, 7, spread);
    sqlite3_bind_int(st, 8, m->reps);
    store__bind_double(st, 9, m->bytes_per_s);
    store__bind_double(st, 10, m->flop_per_s);
    store__bind_double(st, 11, m->roofline_pct);
    store__bind_str(st, 12, m->size_key);
    store__bind_str(st, 13, m->raw_json);
    sqlite3_bind_int64(st, 14, store_now_ms());
    rc = store__exec_stmt(s, st, "add measurement");
    if (rc == HK_OK && id_out)
        *id_out = sqlite3_last_insert_rowid(s->db);
    return rc;
}

int store_measurement_list(store *s, int64_t version_id, int64_t episode_id,
                           store_measurement **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "SELECT " MEASUREMENT_COLS "FROM measurements WHERE version_id = ?1"
                            " AND (?2 = 0 OR episode_id = ?2) ORDER BY id LIMIT 100000",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, version_id);
    sqlite3_bind_int64(st, 2, episode_id);
    store_measurement *arr = NULL;
    size_t n = 0, cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = store__grow((void **)&arr, &cap, n, sizeof *arr, LIST_MAX);
        if (rc) {
            store__failm(s, rc, HK_MSG_STORE_LISTING_MEASUREMENTS);
            goto out;
        }
        rc = measurement_row(s, st, &arr[n]);
        if (rc)
            goto out;
        n++;
    }
    if (r != SQLITE_DONE)
        rc = store__fail(s, r, "list measurements");
out:
    sqlite3_finalize(st);
    if (rc) {
        store_measurements_free(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}

/* ---- evidence ---- */

void store_evidences_free(store_evidence *es, size_t n)
{
    for (size_t i = 0; es && i < n; i++) {
        hk_free(es[i].kind);
        hk_free(es[i].json);
    }
    hk_free(es);
}

int store_evidence_add(store *s, int64_t version_id, int64_t episode_id, const char *kind,
                       const char *json, int64_t *id_out)
{
    if (id_out)
        *id_out = 0;
    if (!kind || !*kind || !json)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_EVIDENCE_NEEDS);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "INSERT INTO evidence(version_id, episode_id, kind, json, created_ms)" /* i18n: not for people (SQL) */
                            " VALUES(?1, ?2, ?3, ?4, ?5)",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, version_id);
    sqlite3_bind_int64(st, 2, episode_id);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, json, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, store_now_ms());
    rc = store__exec_stmt(s, st, "add evidence");
    if (rc == HK_OK && id_out)
        *id_out = sqlite3_last_insert_rowid(s->db);
    return rc;
}

int store_evidence_list(store *s, int64_t version_id, int64_t episode_id, store_evidence **out,
                        size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "SELECT id, version_id, episode_id, kind, json, created_ms" /* i18n: not for people (SQL) */
                            " FROM evidence WHERE version_id = ?1 AND (?2 = 0 OR episode_id = ?2)"
                            " ORDER BY id LIMIT 100000",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, version_id);
    sqlite3_bind_int64(st, 2, episode_id);
    store_evidence *arr = NULL;
    size_t n = 0, cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = store__grow((void **)&arr, &cap, n, sizeof *arr, LIST_MAX);
        if (rc) {
            store__failm(s, rc, HK_MSG_STORE_LISTING_EVIDENCE);
            goto out;
        }
        store_evidence *e = &arr[n++];
        e->id = sqlite3_column_int64(st, 0);
        e->version_id = sqlite3_column_int64(st, 1);
        e->episode_id = sqlite3_column_int64(st, 2);
        e->created_ms = sqlite3_column_int64(st, 5);
        if (store__col_str(st, 3, &e->kind) || store__col_str(st, 4, &e->json)) {
            rc = store__failm(s, HK_ENOMEM, HK_MSG_STORE_OOM_READING_EVIDENCE);
            goto out;
        }
    }
    if (r != SQLITE_DONE)
        rc = store__fail(s, r, "list evidence");
out:
    sqlite3_finalize(st);
    if (rc) {
        store_evidences_free(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}

/* ---- events and stages ---- */

void store_events_free(store_event *es, size_t n)
{
    for (size_t i = 0; es && i < n; i++) {
        hk_free(es[i].stage);
        hk_free(es[i].message);
        hk_free(es[i].json);
    }
    hk_free(es);
}

int store_event_add(store *s, int64_t episode_id, const char *stage, const char *message,
                    const char *json, int64_t *id_out)
{
    if (id_out)
        *id_out = 0;
    if (!stage || !*stage)
        return store__failm(s, HK_EINVAL, HK_MSG_STORE_EVENT_NEEDS_STAGE);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "INSERT INTO events(episode_id, time_ms, stage, message, json)" /* i18n: not for people (SQL) */
                            " VALUES(?1, ?2, ?3, COALESCE(?4, ''), ?5)",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, episode_id);
    sqlite3_bind_int64(st, 2, store_now_ms());
    sqlite3_bind_text(st, 3, stage, -1, SQLITE_STATIC);
    store__bind_str(st, 4, message);
    store__bind_str(st, 5, json);
    rc = store__exec_stmt(s, st, "add event");
    if (rc == HK_OK && id_out)
        *id_out = sqlite3_last_insert_rowid(s->db);
    return rc;
}

int store_event_list(store *s, int64_t episode_id, int64_t after_id, size_t limit,
                     store_event **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (limit == 0)
        limit = 1000;
    if (limit > LIST_MAX)
        limit = LIST_MAX;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "SELECT id, episode_id, time_ms, stage, message, json FROM events" /* i18n: not for people (SQL) */
                            " WHERE episode_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, episode_id);
    sqlite3_bind_int64(st, 2, after_id);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)limit);
    store_event *arr = NULL;
    size_t n = 0, cap = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = store__grow((void **)&arr, &cap, n, sizeof *arr, limit);
        if (rc) {
            store__failm(s, rc, HK_MSG_STORE_LISTING_EVENTS);
            goto out;
        }
        store_event *e = &arr[n++];
        e->id = sqlite3_column_int64(st, 0);
        e->episode_id = sqlite3_column_int64(st, 1);
        e->time_ms = sqlite3_column_int64(st, 2);
        if (store__col_str(st, 3, &e->stage) || store__col_str(st, 4, &e->message) ||
            store__col_str(st, 5, &e->json)) {
            rc = store__failm(s, HK_ENOMEM, HK_MSG_STORE_OOM_READING_EVENTS);
            goto out;
        }
    }
    if (r != SQLITE_DONE)
        rc = store__fail(s, r, "list events");
out:
    sqlite3_finalize(st);
    if (rc) {
        store_events_free(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}

void store_stages_free(store_stage *st, size_t n)
{
    for (size_t i = 0; st && i < n; i++) {
        hk_free(st[i].stage);
        hk_free(st[i].last_message);
    }
    hk_free(st);
}

int store_episode_stages(store *s, int64_t episode_id, store_stage **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    store_episode ep;
    int rc = store_episode_get(s, episode_id, &ep);
    if (rc)
        return rc;
    store_event *ev = NULL;
    size_t n_ev = 0, n = 0, cap = 0;
    store_stage *arr = NULL;
    rc = store_event_list(s, episode_id, 0, LIST_MAX, &ev, &n_ev);
    if (rc)
        goto out;
    for (size_t i = 0; i < n_ev; i++) {
        store_stage *cur = n ? &arr[n - 1] : NULL;
        if (cur && strcmp(cur->stage, ev[i].stage) == 0) {
            cur->end_ms = ev[i].time_ms;
            cur->n_events++;
        } else {
            if (cur)
                cur->end_ms = ev[i].time_ms; /* a stage ends where the next begins */
            rc = store__grow((void **)&arr, &cap, n, sizeof *arr, LIST_MAX);
            if (rc) {
                store__failm(s, rc, HK_MSG_STORE_LISTING_STAGES);
                goto out;
            }
            cur = &arr[n++];
            cur->stage = hk_strdup(ev[i].stage);
            cur->start_ms = cur->end_ms = ev[i].time_ms;
            cur->n_events = 1;
            if (!cur->stage) {
                rc = store__failm(s, HK_ENOMEM, HK_MSG_STORE_OOM);
                goto out;
            }
        }
        hk_free(cur->last_message);
        cur->last_message = hk_strdup(ev[i].message ? ev[i].message : "");
        if (!cur->last_message) {
            rc = store__failm(s, HK_ENOMEM, HK_MSG_STORE_OOM);
            goto out;
        }
    }
    if (n && ep.status != STORE_EP_RUNNING && ep.ended_ms > arr[n - 1].end_ms)
        arr[n - 1].end_ms = ep.ended_ms;
out:
    store_events_free(ev, n_ev);
    store_episode_clear(&ep);
    if (rc) {
        store_stages_free(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}

/* ---- history ---- */

void store_history_free(store_history_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        store_version_clear(&rows[i].version);
        store_measurement_clear(&rows[i].best);
        store_measurement_clear(&rows[i].base);
    }
    hk_free(rows);
}

/* The measurement that represents version vid in episode eid: the fastest "verify" one
 * (interleaved with the baseline, so the fairest), else the fastest of any kind; only of
 * problem size size_key when it is not NULL (so a version and its baseline are compared
 * at the same size). */
static int representative(store *s, int64_t vid, int64_t eid, const char *size_key, bool *found,
                          store_measurement *m)
{
    *found = false;
    memset(m, 0, sizeof *m);
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "SELECT " MEASUREMENT_COLS "FROM measurements WHERE version_id = ?1" /* i18n: not for people (SQL) */
                            " AND episode_id = ?2 AND (?3 IS NULL OR size_key = ?3)"
                            " ORDER BY (kind = 'verify') DESC, median_ms, id DESC LIMIT 1",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, vid);
    sqlite3_bind_int64(st, 2, eid);
    store__bind_str(st, 3, size_key);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        rc = measurement_row(s, st, m);
        *found = rc == HK_OK;
    } else if (r != SQLITE_DONE) {
        rc = store__fail(s, r, "find measurement");
    }
    sqlite3_finalize(st);
    return rc;
}

/* Fills the performance part of row for its version measured in episode eid. */
static int fill_perf(store *s, store_history_row *row, int64_t eid)
{
    row->speedup = row->speedup_lo = row->speedup_hi = NAN;
    int64_t base_vid = 0;
    int rc = query_id(s, "SELECT COALESCE(baseline_version_id, 0) FROM episodes WHERE id = ?1",
                      eid, &base_vid);
    if (rc == HK_ENOENT)
        rc = HK_OK;
    if (rc)
        return rc;
    rc = representative(s, row->version.id, eid, NULL, &row->measured, &row->best);
    if (rc == HK_OK && base_vid) {
        /* The baseline at the version's size; at any size when it was never measured so. */
        if (row->measured && row->best.size_key)
            rc = representative(s, base_vid, eid, row->best.size_key, &row->has_base, &row->base);
        if (rc == HK_OK && !row->has_base)
            rc = representative(s, base_vid, eid, NULL, &row->has_base, &row->base);
    }
    if (rc || !row->measured || !row->has_base)
        return rc;
    const store_measurement *b = &row->base, *v = &row->best;
    row->speedup = b->median_ms / v->median_ms;
    if (isfinite(b->p10_ms) && isfinite(v->p90_ms) && v->p90_ms > 0)
        row->speedup_lo = b->p10_ms / v->p90_ms;
    if (isfinite(b->p90_ms) && isfinite(v->p10_ms) && v->p10_ms > 0)
        row->speedup_hi = b->p90_ms / v->p10_ms;
    return HK_OK;
}

/* Rows for the versions st selects (VERSION_COLS_NO_SOURCE), measured in measure_eid or,
 * when it is 0, each in its own episode. */
static int history_rows(store *s, sqlite3_stmt *st, int64_t measure_eid, store_history_row **out,
                        size_t *n_out)
{
    store_history_row *arr = NULL;
    size_t n = 0, cap = 0;
    int rc = HK_OK, r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        rc = store__grow((void **)&arr, &cap, n, sizeof *arr, LIST_MAX);
        if (rc) {
            store__failm(s, rc, HK_MSG_STORE_LISTING_VERSIONS);
            goto out;
        }
        store_history_row *row = &arr[n++];
        rc = version_row(s, st, &row->version);
        if (rc)
            goto out;
    }
    if (r != SQLITE_DONE) {
        rc = store__fail(s, r, "list versions");
        goto out;
    }
    /* Measurements are read after the version cursor is done with. */
    for (size_t i = 0; i < n; i++) {
        rc = fill_perf(s, &arr[i], measure_eid ? measure_eid : arr[i].version.episode_id);
        if (rc)
            goto out;
    }
out:
    if (rc) {
        store_history_free(arr, n);
        return rc;
    }
    *out = arr;
    *n_out = n;
    return HK_OK;
}

int store_kernel_history(store *s, int64_t kernel_id, store_history_row **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    sqlite3_stmt *st = NULL;
    int rc = store__prepare(s,
                            "SELECT " VERSION_COLS_NO_SOURCE "FROM versions WHERE kernel_id = ?1"
                            " ORDER BY number LIMIT 100000",
                            &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, kernel_id);
    rc = history_rows(s, st, 0, out, n_out);
    sqlite3_finalize(st);
    return rc;
}

int store_episode_versions(store *s, int64_t episode_id, store_history_row **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    int rc = episode_exists(s, episode_id);
    if (rc)
        return rc;
    sqlite3_stmt *st = NULL;
    rc = store__prepare(s,
                        "SELECT " VERSION_COLS_NO_SOURCE "FROM versions WHERE episode_id = ?1" /* i18n: not for people (SQL) */
                        " OR id IN (SELECT baseline_version_id FROM episodes WHERE id = ?1"
                        "  UNION SELECT best_version_id FROM episodes WHERE id = ?1"
                        "  UNION SELECT version_id FROM measurements WHERE episode_id = ?1)"
                        " ORDER BY number LIMIT 100000",
                        &st);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, episode_id);
    rc = history_rows(s, st, episode_id, out, n_out);
    sqlite3_finalize(st);
    return rc;
}

int store_kernel_best_verified(store *s, int64_t kernel_id, const char *arch, store_version *out)
{
    memset(out, 0, sizeof *out);
    store_history_row *rows = NULL;
    size_t n = 0;
    int rc = store_kernel_history(s, kernel_id, &rows, &n);
    if (rc)
        return rc;
    int64_t best_id = 0;
    double best = 1.0;
    sqlite3_stmt *st = NULL;
    if (arch) {
        rc = store__prepare(s, "SELECT 1 FROM episodes WHERE id = ?1 AND arch = ?2", &st); /* i18n: not for people (SQL) */
        if (rc)
            goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const store_history_row *r = &rows[i];
        if (r->version.status != STORE_V_VERIFIED || !isfinite(r->speedup) ||
            r->speedup < best || (r->speedup == best && best_id == 0))
            continue;
        if (st) {
            sqlite3_reset(st);
            sqlite3_bind_int64(st, 1, r->version.episode_id);
            sqlite3_bind_text(st, 2, arch, -1, SQLITE_STATIC);
            int q = sqlite3_step(st);
            if (q == SQLITE_DONE)
                continue;
            if (q != SQLITE_ROW) {
                rc = store__fail(s, q, "episode arch");
                goto out;
            }
        }
        /* Rows are by number, so on a tie the later (newer) version wins. */
        best = r->speedup;
        best_id = r->version.id;
    }
    if (best_id)
        rc = store_version_get(s, best_id, out);
    else
        rc = store__failm(s, HK_ENOENT, HK_MSG_STORE_NO_FASTER_VERIFIED);
out:
    sqlite3_finalize(st);
    store_history_free(rows, n);
    return rc;
}

bool store_episode_simulated(const store_episode *e)
{
    if (!e)
        return false;
    if (e->device && !strcmp(e->device, STORE_SIMULATED_DEVICE))
        return true;
    if (!e->info_json)
        return false;
    json_t *j = json_loads(e->info_json, 0, NULL);
    const char *how = json_string_value(json_object_get(json_object_get(j, "gpu"), "how"));
    bool sim = how && !strcmp(how, "simulated");
    json_decref(j);
    return sim;
}
