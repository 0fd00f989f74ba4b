/* `hkls history`, `hkls report` and `hkls apply`: the command-line view of the history
 * database. history and report only read, except that an episode whose worker died is
 * marked interrupted first, as the editor's server does; apply writes a verified version
 * back into the user's file, and only over the exact kernel text the episode started from,
 * so it never overwrites edits made since; the kernel's launch sites in that file get the
 * grid and block the version was measured with. What to change and where is
 * episode/apply.c's, shared with the editor's Apply; this file words it and writes it. */
#include "cli/cli_history.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "episode/apply.h"
#include "episode/episode.h"
#include "rewrites/rewrite.h"
#include "report/report.h"
#include "store/store.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_STALE = 3 };

#define DIFF_SHOWN_MAX ((size_t)64 << 10) /* diff printed with a refusal or --dry-run */

/* ---- options ---- */

/* Matches "--name VALUE" or "--name=VALUE" at argv[*i]; advances *i past the value.
 * Returns 1 when matched (value in *val), 0 when not this option, -1 when the value is
 * missing (message printed). */
static int opt_value(const char *cmd, int argc, char **argv, int *i, const char *name,
                     const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_NEEDS_VALUE), cmd, name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* ---- database ---- */

/* Opens the history database: path, else $HK_DB / the default path. A missing file is an
 * error (history never creates one). On success *db and *path_out (hk_free) are set, and
 * every running episode whose worker is gone has been marked interrupted. */
static int open_db(const char *cmd, const char *path, store **db, char **path_out)
{
    *db = NULL;
    *path_out = NULL;
    char *p = NULL;
    if (path) {
        p = hk_strdup(path);
    } else if (ep_default_db_path(&p) != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_NO_DB_PATH), cmd);
        return EXIT_USAGE;
    }
    if (!p) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_OUT_OF_MEMORY), cmd);
        return EXIT_FAILED;
    }
    if (strcmp(p, ":memory:") != 0 && access(p, F_OK) != 0) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_NO_DB), cmd, p);
        hk_free(p);
        return EXIT_FAILED;
    }
    int rc = store_open(p, db);
    if (rc != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_DB_OPEN), cmd, p,
                rc == HK_EUNSUPPORTED ? hk_tr(HK_MSG_CLI_DB_NEWER) : hk_strerror(rc));
        hk_free(p);
        return EXIT_FAILED;
    }
    /* A killed worker leaves its episode "running" forever: every entry point marks it the
     * same way, through the store's one test of a worker (pid and its start time), so the
     * CLI and the editor never disagree about it. Failing that is a note, not an error:
     * the history is still worth showing (a read-only database, say). */
    if (store_mark_interrupted(*db, NULL) != HK_OK)
        fprintf(stderr, hk_tr(HK_MSG_CLI_DB_MARK), cmd,
                store_errmsg(*db));
    *path_out = p;
    return EXIT_OK;
}

/* Finds an episode by id ("12", "#12") or by name (the newest with that name). */
static int find_episode(const char *cmd, store *db, const char *arg, store_episode *out)
{
    memset(out, 0, sizeof *out);
    const char *num = arg[0] == '#' ? arg + 1 : arg;
    long id;
    if (parse_long(num, 1, 0x7fffffff, &id)) {
        int rc = store_episode_get(db, id, out);
        if (rc == HK_OK)
            return EXIT_OK;
        if (rc != HK_ENOENT) {
            fprintf(stderr, "hkls %s: %s\n", cmd, store_errmsg(db));
            return EXIT_FAILED;
        }
    }
    store_episode_filter f = { .limit = 10000 };
    store_episode *all = NULL;
    size_t n = 0;
    if (store_episode_list(db, &f, &all, &n) != HK_OK) {
        fprintf(stderr, "hkls %s: %s\n", cmd, store_errmsg(db));
        return EXIT_FAILED;
    }
    int found = -1;
    for (size_t i = 0; i < n && found < 0; i++)
        if (all[i].name && !strcmp(all[i].name, arg))
            found = (int)i;
    int rc = EXIT_FAILED;
    if (found >= 0) {
        *out = all[found];
        memset(&all[found], 0, sizeof all[found]);
        rc = EXIT_OK;
    } else {
        fprintf(stderr, hk_tr(HK_MSG_CLI_NO_EPISODE), cmd, arg);
    }
    store_episodes_free(all, n);
    return rc;
}

/* ---- formatting ---- */

static void fmt_time(int64_t ms, char *out, size_t len)
{
    if (ms <= 0) {
        snprintf(out, len, "-");
        return;
    }
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(out, len, "%lld ms", (long long)ms);
}

static void fmt_duration(const store_episode *e, char *out, size_t len)
{
    if (e->ended_ms <= 0 || e->started_ms <= 0) {
        snprintf(out, len, "-");
        return;
    }
    double s = (double)(e->ended_ms - e->started_ms) / 1000.0;
    if (s < 120)
        snprintf(out, len, "%.1f s", s);
    else
        snprintf(out, len, "%.1f min", s / 60);
}

static void fmt_speedup(const store_history_row *r, char *out, size_t len)
{
    if (!isfinite(r->speedup)) {
        snprintf(out, len, "-");
        return;
    }
    if (isfinite(r->speedup_lo) && isfinite(r->speedup_hi))
        snprintf(out, len, "%.2fx [%.2f, %.2f]", r->speedup, r->speedup_lo, r->speedup_hi);
    else
        snprintf(out, len, "%.2fx", r->speedup);
}

static const store_history_row *row_by_id(const store_history_row *rows, size_t n, int64_t id)
{
    for (size_t i = 0; id && i < n; i++)
        if (rows[i].version.id == id)
            return &rows[i];
    return NULL;
}

static void print_kernel_text(const store_kernel *k, const store_episode *eps, size_t n_eps,
                              const store_history_row *rows, size_t n_rows)
{
    printf("%s: %s\n", k->file, k->name);
    printf("  %s\n", hk_tr(HK_MSG_HIST_EPISODES));
    if (n_eps == 0)
        printf("    %s\n", hk_tr(HK_MSG_HIST_NONE));
    cli_table t;
    cli_table_init(&t, 6);
    for (size_t i = 0; i < n_eps; i++) {
        const store_episode *e = &eps[i];
        char id[32], when[64], dur[32], sp[64] = "-", tail[256] = "";
        snprintf(id, sizeof id, "#%lld", (long long)e->id);
        fmt_time(e->started_ms, when, sizeof when);
        fmt_duration(e, dur, sizeof dur);
        const store_history_row *best = row_by_id(rows, n_rows, e->best_version_id);
        if (best)
            fmt_speedup(best, sp, sizeof sp);
        snprintf(tail, sizeof tail, "%s", e->device ? e->device : hk_tr(HK_MSG_HIST_NO_GPU));
        if (best) {
            size_t l = strlen(tail);
            snprintf(tail + l, sizeof tail - l, hk_tr(HK_MSG_HIST_BEST), best->version.number, sp);
        }
        if (store_episode_simulated(e)) {
            size_t l = strlen(tail);
            snprintf(tail + l, sizeof tail - l, "%s", hk_tr(HK_MSG_HIST_SIMULATED));
        }
        const char *cells[] = {id, e->name ? e->name : "-", store_episode_status_name(e->status),
                               when, dur, tail};
        cli_table_row(&t, cells);
        if (e->error && *e->error) {
            const char *nl = strchr(e->error, '\n');
            char *first = hk_asprintf("%.*s", nl ? (int)(nl - e->error) : (int)strlen(e->error),
                                      e->error);
            /* stored in English (an older hkls's may be Chinese: shown as it is) */
            char *said = hk_tr_said(hk_i18n_lang(), first);
            char *note = first ? hk_trf(e->status == STORE_EP_COMPLETED ? HK_MSG_HIST_NOTE
                                                                        : HK_MSG_HIST_WHY,
                                        said ? said : first)
                               : NULL;
            cli_table_note(&t, note ? note : "");
            hk_free(note);
            hk_free(said);
            hk_free(first);
        }
    }
    cli_table_print(&t, stdout, "    ");
    cli_table_free(&t);
    printf("  %s\n", hk_tr(HK_MSG_HIST_VERSIONS));
    if (n_rows == 0)
        printf("    %s\n", hk_tr(HK_MSG_HIST_NONE));
    cli_table_init(&t, 7);
    for (size_t i = 0; i < n_rows; i++) {
        const store_history_row *r = &rows[i];
        const store_version *v = &r->version;
        char label[32], parent[32] = "", sp[64], ms[32] = "-", ep[32], tail[640] = "";
        snprintf(label, sizeof label, "v%d", v->number);
        snprintf(ep, sizeof ep, "#%lld", (long long)v->episode_id);
        const store_history_row *p = row_by_id(rows, n_rows, v->parent_id);
        if (p)
            snprintf(parent, sizeof parent, "<- v%d", p->version.number);
        else if (v->parent_id)
            snprintf(parent, sizeof parent, "<- id %lld", (long long)v->parent_id);
        if (r->measured)
            snprintf(ms, sizeof ms, "%.4f ms", r->best.median_ms);
        fmt_speedup(r, sp, sizeof sp);
        for (size_t j = 0; j < n_eps; j++) /* a simulated GPU's numbers say so */
            if (eps[j].id == v->episode_id && store_episode_simulated(&eps[j])) {
                if (r->measured)
                    snprintf(ms, sizeof ms, "%.4f ms sim", r->best.median_ms);
                size_t l = strlen(sp);
                snprintf(sp + l, sizeof sp - l, " simulated");
            }
        if (v->status == STORE_V_REJECTED)
            snprintf(tail, sizeof tail, "%s", v->reject_reason ? v->reject_reason : "rejected");
        else
            snprintf(tail, sizeof tail, "%s", sp);
        if (isfinite(v->max_rel_err) && v->status != STORE_V_REJECTED) {
            size_t l = strlen(tail);
            snprintf(tail + l, sizeof tail - l, hk_tr(HK_MSG_HIST_MAX_REL_ERR), v->max_rel_err);
        }
        const char *cells[] = {label, parent, ep, store_version_status_label(v->status, r->measured),
                               v->produced_by ? v->produced_by : "-", ms, tail};
        cli_table_row(&t, cells);
    }
    cli_table_print(&t, stdout, "    ");
    cli_table_free(&t);
}

/* ---- hkls history ---- */

static void history_usage(FILE *f)
{
    fprintf(f, "%s", hk_tr(HK_MSG_CLI_HISTORY_USAGE));
}

int cli_history(int argc, char **argv)
{
    const char *file = NULL, *kernel = NULL, *db_path = NULL, *limit_s = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        int m;
        if ((m = opt_value("history", argc, argv, &i, "--kernel", &kernel)) ||
            (m = opt_value("history", argc, argv, &i, "--db", &db_path)) ||
            (m = opt_value("history", argc, argv, &i, "--limit", &limit_s))) {
            if (m < 0)
                return EXIT_USAGE;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            history_usage(stdout);
            return EXIT_OK;
        } else if (argv[i][0] == '-' || file) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_HISTORY_UNEXPECTED), argv[i]);
            history_usage(stderr);
            return EXIT_USAGE;
        } else {
            file = argv[i];
        }
    }
    long limit = 100;
    if (limit_s && !parse_long(limit_s, 1, 10000, &limit)) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_HISTORY_LIMIT), limit_s);
        return EXIT_USAGE;
    }
    /* Episodes record the file's real path: look it up the same way. */
    char *file_abs = NULL;
    if (file) {
        char *rp = realpath(file, NULL);
        file_abs = rp ? hk_strdup(rp) : hk_strdup(file);
        free(rp);
        if (!file_abs) {
            fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_HISTORY_OOM));
            return EXIT_FAILED;
        }
    }
    store *db = NULL;
    char *path = NULL;
    int ec = open_db("history", db_path, &db, &path);
    store_kernel *ks = NULL;
    size_t n_ks = 0;
    json_t *out = NULL, *karr = NULL;
    if (ec != EXIT_OK)
        goto out;
    if (store_kernel_list(db, file_abs, &ks, &n_ks) != HK_OK) {
        fprintf(stderr, "hkls history: %s\n", store_errmsg(db));
        ec = EXIT_FAILED;
        goto out;
    }
    if (json) {
        out = json_object();
        karr = json_array();
        if (!out || !karr || json_object_set_new(out, "db", json_string(path)) ||
            json_object_set(out, "kernels", karr)) {
            ec = EXIT_FAILED;
            goto out;
        }
    }
    size_t shown = 0;
    for (size_t i = 0; i < n_ks && ec == EXIT_OK; i++) {
        if (kernel && strcmp(ks[i].name, kernel) != 0)
            continue;
        store_episode_filter f = { .kernel_id = ks[i].id, .limit = (size_t)limit };
        store_episode *eps = NULL;
        size_t n_eps = 0;
        store_history_row *rows = NULL;
        size_t n_rows = 0;
        if (store_episode_list(db, &f, &eps, &n_eps) != HK_OK ||
            store_kernel_history(db, ks[i].id, &rows, &n_rows) != HK_OK) {
            fprintf(stderr, "hkls history: %s\n", store_errmsg(db));
            ec = EXIT_FAILED;
        } else if (json) {
            json_t *k = json_object(), *ea = json_array();
            json_t *va = report_history_json(rows, n_rows);
            bool ok = k && ea && va && json_array_append(karr, k) == 0;
            ok = ok && !json_object_set_new(k, "id", json_integer(ks[i].id));
            ok = ok && !json_object_set_new(k, "file", json_string(ks[i].file));
            ok = ok && !json_object_set_new(k, "name", json_string(ks[i].name));
            ok = ok && !json_object_set_new(k, "content_hash", ks[i].content_hash ?
                                            json_string(ks[i].content_hash) : json_null());
            ok = ok && !json_object_set(k, "episodes", ea) && !json_object_set(k, "versions", va);
            for (size_t e = 0; ok && e < n_eps; e++)
                ok = json_array_append_new(ea, report_episode_summary(&eps[e])) == 0;
            json_decref(k);
            json_decref(ea);
            json_decref(va);
            if (!ok) {
                fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_HISTORY_OOM));
                ec = EXIT_FAILED;
            }
        } else {
            if (shown)
                printf("\n");
            print_kernel_text(&ks[i], eps, n_eps, rows, n_rows);
        }
        shown++;
        store_episodes_free(eps, n_eps);
        store_history_free(rows, n_rows);
    }
    if (ec == EXIT_OK && json) {
        char *s = json_dumps(out, JSON_INDENT(2) | JSON_ENSURE_ASCII);
        if (!s) {
            ec = EXIT_FAILED;
        } else {
            printf("%s\n", s);
            free(s);
        }
    } else if (ec == EXIT_OK && shown == 0) {
        if (file || kernel) {
            char *what = hk_asprintf("%s%s%s", file ? file : "", file && kernel ? ": " : "",
                                     kernel ? kernel : "");
            printf(hk_tr(HK_MSG_HIST_NO_HISTORY_FOR), what ? what : "");
            hk_free(what);
        } else {
            printf(hk_tr(HK_MSG_HIST_NO_HISTORY_YET), path);
        }
    }
out:
    json_decref(out);
    json_decref(karr);
    store_kernels_free(ks, n_ks);
    store_close(db);
    hk_free(path);
    hk_free(file_abs);
    return ec;
}

/* ---- files ---- */


/* Writes text to path through a temporary file in the same directory and a rename, so a
 * crash leaves the old or the new file, never half of one. mode: the permissions. */
static int write_atomic(const char *path, const char *text, size_t len, mode_t mode)
{
    char *tmp = hk_asprintf("%s.hk-XXXXXX", path);
    if (!tmp)
        return HK_ENOMEM;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        hk_free(tmp);
        return HK_EIO;
    }
    int rc = HK_OK;
    for (size_t off = 0; off < len && rc == HK_OK;) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            rc = HK_EIO;
        else
            off += (size_t)w;
    }
    if (rc == HK_OK && (fchmod(fd, mode & 07777) != 0 || fsync(fd) != 0))
        rc = HK_EIO;
    if (close(fd) != 0 && rc == HK_OK)
        rc = HK_EIO;
    if (rc == HK_OK && rename(tmp, path) != 0)
        rc = HK_EIO;
    if (rc != HK_OK)
        unlink(tmp);
    hk_free(tmp);
    return rc;
}

/* ---- hkls report ---- */

static void report_usage(FILE *f)
{
    fprintf(f, "%s", hk_tr(HK_MSG_CLI_REPORT_USAGE));
}

int cli_report(int argc, char **argv)
{
    const char *ep_arg = NULL, *format = "md", *db_path = NULL, *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        int m;
        if ((m = opt_value("report", argc, argv, &i, "--format", &format)) ||
            (m = opt_value("report", argc, argv, &i, "--db", &db_path)) ||
            (m = opt_value("report", argc, argv, &i, "--output", &out_path)) ||
            (m = opt_value("report", argc, argv, &i, "-o", &out_path))) {
            if (m < 0)
                return EXIT_USAGE;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            report_usage(stdout);
            return EXIT_OK;
        } else if (argv[i][0] == '-' || ep_arg) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_REPORT_UNEXPECTED), argv[i]);
            report_usage(stderr);
            return EXIT_USAGE;
        } else {
            ep_arg = argv[i];
        }
    }
    if (!ep_arg) {
        report_usage(stderr);
        return EXIT_USAGE;
    }
    int (*render)(store *, int64_t, struct hk_buf *) = NULL;
    if (!strcmp(format, "md") || !strcmp(format, "markdown"))
        render = report_render_markdown;
    else if (!strcmp(format, "html"))
        render = report_render_html;
    else if (!strcmp(format, "json"))
        render = report_render_json;
    if (!render) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_REPORT_FORMAT), format);
        return EXIT_USAGE;
    }
    store *db = NULL;
    char *path = NULL;
    store_episode e;
    memset(&e, 0, sizeof e);
    struct hk_buf b;
    hk_buf_init(&b, REPORT_MAX_BYTES);
    int ec = open_db("report", db_path, &db, &path);
    if (ec == EXIT_OK)
        ec = find_episode("report", db, ep_arg, &e);
    if (ec != EXIT_OK)
        goto out;
    int rc = render(db, e.id, &b);
    if (rc != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_REPORT_RENDER), (long long)e.id,
                rc == HK_ETOOBIG ? hk_tr(HK_MSG_CLI_REPORT_TOO_LARGE) : hk_strerror(rc),
                rc == HK_EDB ? ": " : "", rc == HK_EDB ? store_errmsg(db) : "");
        ec = EXIT_FAILED;
        goto out;
    }
    if (out_path) {
        rc = write_atomic(out_path, b.data ? b.data : "", b.len, 0644);
        if (rc != HK_OK) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_REPORT_WRITE), out_path, hk_strerror(rc));
            ec = EXIT_FAILED;
            goto out;
        }
        fprintf(stderr, hk_tr(HK_MSG_CLI_WROTE), out_path);
    } else if (b.len && fwrite(b.data, 1, b.len, stdout) != b.len) {
        ec = EXIT_FAILED;
    }
out:
    hk_buf_free(&b);
    store_episode_clear(&e);
    store_close(db);
    hk_free(path);
    return ec;
}

/* ---- hkls apply ---- */

static int line_of(const char *text, uint32_t byte)
{
    int line = 1;
    for (uint32_t i = 0; i < byte; i++)
        line += text[i] == '\n';
    return line;
}

/* Prints the unified diff of a -> b (capped). */
static void print_diff(FILE *f, const char *a, size_t alen, const char *b, size_t blen,
                       const char *la, const char *lb)
{
    struct hk_buf d;
    hk_buf_init(&d, DIFF_SHOWN_MAX);
    int rc = report_diff_unified(a, alen, b, blen, la, lb, 3, &d);
    if (d.len)
        fwrite(d.data, 1, d.len, f);
    if (rc == HK_ETOOBIG)
        fprintf(f, "%s", hk_tr(HK_MSG_CLI_DIFF_TOO_LARGE));
    else if (rc != HK_OK)
        fprintf(f, hk_tr(HK_MSG_CLI_NO_DIFF), hk_strerror(rc));
    hk_buf_free(&d);
}

/* The refusal when the episode's starting kernel (base_k) is no longer in the file (cur):
 * renamed or removed, or edited, with what changed. Returns the exit code. */
static int refuse_changed_kernel(const store_episode *e, const store_version *v,
                                 const char *base_k, const char *cur, size_t cur_len)
{
    an_model *m = NULL;
    int rc = an_analyze(cur, cur_len, &m);
    long k = rc == HK_OK ? an_model_find_kernel(m, e->kernel) : -1;
    const an_span *sp = k >= 0 ? &m->funcs[k].span : NULL;
    int ec = EXIT_STALE;
    if (rc != HK_OK || (sp && (sp->end_byte > cur_len || sp->start_byte > sp->end_byte))) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_ANALYSE), e->file,
                hk_strerror(rc != HK_OK ? rc : HK_EPARSE));
        ec = EXIT_FAILED;
    } else if (!sp) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_KERNEL_GONE), e->file, e->kernel, (long long)e->id);
    } else {
        char was[STORE_HASH_HEX], now[STORE_HASH_HEX];
        store_content_hash(base_k, strlen(base_k), was);
        store_content_hash(cur + sp->start_byte, sp->end_byte - sp->start_byte, now);
        fprintf(stderr,
                hk_tr(HK_MSG_CLI_APPLY_KERNEL_CHANGED),
                e->kernel, e->file, line_of(cur, sp->start_byte), line_of(cur, sp->end_byte),
                (long long)e->id, v->number, was, now);
        print_diff(stderr, base_k, strlen(base_k), cur + sp->start_byte,
                   sp->end_byte - sp->start_byte, hk_tr(HK_MSG_CLI_DIFF_WAS),
                   hk_tr(HK_MSG_CLI_DIFF_NOW));
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_APPLY_KERNEL_CHANGED_HINT));
    }
    an_model_free(m);
    return ec;
}

/* The compiler flags a version was measured with are the build's business: a note. (Its
 * launch configuration is written into the file by apply_launch.) */
static void print_flags_note(const store_version *v, const store_version *base)
{
    json_t *lj = v->launch_json ? json_loads(v->launch_json, 0, NULL) : NULL;
    json_t *bj = base->launch_json ? json_loads(base->launch_json, 0, NULL) : NULL;
    json_t *flags = json_object_get(lj, "flags");
    if (json_is_array(flags) && json_array_size(flags) > 0 &&
        !json_equal(flags, json_object_get(bj, "flags"))) {
        printf(hk_tr(HK_MSG_CLI_APPLY_FLAGS_NOTE), v->number);
        size_t i;
        json_t *x;
        json_array_foreach(flags, i, x)
            printf(" %s", json_string_value(x) ? json_string_value(x) : "?");
        printf("%s", hk_tr(HK_MSG_CLI_APPLY_FLAGS_ADD));
    }
    json_decref(lj);
    json_decref(bj);
}

/* Rewrites the launch sites of the episode's kernel in *text (owned; replaced when the
 * launch changed) to what v was measured with (its launch_json against the baseline's,
 * ep_apply_launch: the editor's Apply does the same). *msg: a new line to print (what
 * changed and where, why it could not, or how to launch it), or NULL when there is
 * nothing to say. HK_OK or HK_ENOMEM; anything else the rewrite cannot do becomes a note,
 * the kernel is applied all the same (the editor refuses instead: docs/episode.md) -- except
 * for a version measured on a divided grid (a stencil_window body: each thread does K rows):
 * applied under the user's undivided grid it would do K times the work for nothing, so
 * *refused is set (1: divided, 2: multiplied) and *msg says why. */
static int apply_launch(const store_episode *e, const store_version *v,
                        const store_version *base, char **text, size_t *len, char **msg,
                        int *refused)
{
    *msg = NULL;
    *refused = 0;
    json_t *lj = v->launch_json ? json_loads(v->launch_json, 0, NULL) : NULL;
    json_t *bj = base->launch_json ? json_loads(base->launch_json, 0, NULL) : NULL;
    rw_result r = {0};
    rw_launch_report rep = {0};
    ep_launch_fail fail;
    char err[256];
    int rc = ep_apply_launch(*text, *len, NULL, e->kernel, lj, bj,
                             ep_apply_hip(e->backend, e->file), &r, &rep, &fail, err,
                             sizeof err);
    if (rc == HK_ENOMEM)
        goto out;
    const char *mode = json_string_value(json_object_get(lj, "grid_mode"));
    bool mult = mode && !strcmp(mode, "multiplied");
    if (mode && (!strcmp(mode, "divided") || mult) && (fail != EP_LAUNCH_OK || !r.applicable)) {
        *refused = mult ? 2 : 1;
        *msg = hk_asprintf(hk_tr(mult ? HK_MSG_CLI_APPLY_MEASURED_MUL : HK_MSG_CLI_APPLY_MEASURED_DIV),
                           v->number,
                           (long long)json_integer_value(json_object_get(lj, mult ? "grid_multiplier"
                                                                                  : "grid_divisor")),
                           json_string_value(json_object_get(lj, "grid_axis"))
                               ? json_string_value(json_object_get(lj, "grid_axis"))
                               : "?",
                           fail == EP_LAUNCH_JSON ? err
                           : fail != EP_LAUNCH_OK ? hk_strerror(rc)
                                                  : r.description);
        rc = *msg ? HK_OK : HK_ENOMEM;
        goto out;
    }
    if (fail == EP_LAUNCH_JSON) {
        *msg = hk_asprintf(hk_tr(HK_MSG_CLI_APPLY_LAUNCH_JSON), v->number, err);
    } else if (fail == EP_LAUNCH_ANALYSE) {
        *msg = hk_asprintf(hk_tr(HK_MSG_CLI_APPLY_LAUNCH_ANALYSE), hk_strerror(rc));
    } else if (fail == EP_LAUNCH_REWRITE) {
        *msg = hk_asprintf(hk_tr(HK_MSG_CLI_APPLY_LAUNCH_REWRITE), hk_strerror(rc));
    } else if (!r.applicable) {
        *msg = hk_asprintf(hk_tr(HK_MSG_CLI_APPLY_LAUNCH_NOT_WRITTEN), v->number,
                           r.description);
    } else if (rep.n_edits) {
        *msg = hk_asprintf(hk_tr(HK_MSG_CLI_APPLY_LAUNCH), r.description);
        if (*msg) {
            hk_free(*text);
            *text = r.text;
            *len = r.len;
            r.text = NULL;
        }
    } else if (rep.advice) {
        *msg = hk_asprintf(hk_tr(HK_MSG_CLI_APPLY_NOTE), r.description);
    }
    rc = (*msg || (fail == EP_LAUNCH_OK && r.applicable && !rep.n_edits && !rep.advice))
             ? HK_OK
             : HK_ENOMEM;
out:
    rw_result_free(&r);
    rw_launch_report_free(&rep);
    json_decref(lj);
    json_decref(bj);
    return rc;
}

static void apply_usage(FILE *f)
{
    fprintf(f, "%s", hk_tr(HK_MSG_CLI_APPLY_USAGE));
}

int cli_apply(int argc, char **argv)
{
    const char *ep_arg = NULL, *db_path = NULL, *ver_s = NULL;
    bool dry = false;
    for (int i = 1; i < argc; i++) {
        int m;
        if ((m = opt_value("apply", argc, argv, &i, "--version", &ver_s)) ||
            (m = opt_value("apply", argc, argv, &i, "--db", &db_path))) {
            if (m < 0)
                return EXIT_USAGE;
        } else if (!strcmp(argv[i], "--dry-run") || !strcmp(argv[i], "-n")) {
            dry = true;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            apply_usage(stdout);
            return EXIT_OK;
        } else if (argv[i][0] == '-' || ep_arg) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_UNEXPECTED), argv[i]);
            apply_usage(stderr);
            return EXIT_USAGE;
        } else {
            ep_arg = argv[i];
        }
    }
    long want_number = -1;
    if (!ep_arg) {
        apply_usage(stderr);
        return EXIT_USAGE;
    }
    if (ver_s && !parse_long(ver_s[0] == 'v' ? ver_s + 1 : ver_s, 0, 0x7fffffff, &want_number)) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_VERSION_ARG), ver_s);
        return EXIT_USAGE;
    }

    store *db = NULL;
    char *path = NULL, *cur = NULL, *next = NULL, *launch_msg = NULL;
    size_t cur_len = 0;
    store_episode e;
    store_version v, base;
    store_history_row *rows = NULL;
    size_t n_rows = 0;
    char *base_k = NULL;
    ep_change ch;
    memset(&ch, 0, sizeof ch);
    memset(&e, 0, sizeof e);
    memset(&v, 0, sizeof v);
    memset(&base, 0, sizeof base);
    int rc, ec = open_db("apply", db_path, &db, &path);
    if (ec == EXIT_OK)
        ec = find_episode("apply", db, ep_arg, &e);
    if (ec != EXIT_OK)
        goto out;
    ec = EXIT_FAILED;
    if (store_kernel_history(db, e.kernel_id, &rows, &n_rows) != HK_OK) {
        fprintf(stderr, "hkls apply: %s\n", store_errmsg(db));
        goto out;
    }

    /* which version */
    int64_t vid = e.best_version_id;
    if (want_number >= 0) {
        vid = 0;
        for (size_t i = 0; i < n_rows && !vid; i++)
            if (rows[i].version.number == want_number)
                vid = rows[i].version.id;
        if (!vid) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_NO_VERSION),
                    e.kernel, want_number, e.file);
            goto out;
        }
    } else if (!vid) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_NO_BEST), (long long)e.id,
                store_episode_status_name(e.status));
        goto out;
    }
    if (store_version_get(db, vid, &v) != HK_OK || !v.source) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_VERSION_GET), (long long)vid, store_errmsg(db));
        goto out;
    }
    if (v.kernel_id != e.kernel_id) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_OTHER_KERNEL), v.number);
        goto out;
    }
    if (v.status != STORE_V_VERIFIED) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_NOT_VERIFIED), v.number, store_version_status_name(v.status), v.reject_reason ? ": " : "",
                v.reject_reason ? v.reject_reason : "");
        goto out;
    }
    if (!e.baseline_version_id || store_version_get(db, e.baseline_version_id, &base) != HK_OK ||
        !base.source) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_NO_BASE), (long long)e.id);
        goto out;
    }

    /* the file as it is now */
    rc = hk_read_file(e.file, AN_TEXT_MAX_BYTES, &cur, &cur_len);
    if (rc != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_READ), e.file,
                rc == HK_ENOENT ? hk_tr(HK_MSG_CLI_APPLY_NO_SUCH_FILE) : hk_strerror(rc));
        goto out;
    }
    struct stat st;
    if (stat(e.file, &st) != 0) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_STAT), e.file, strerror(errno));
        goto out;
    }
    /* The episode recorded the whole file as it started (its baseline version's text);
     * the version's change against it, and where it goes now, as the editor finds them. */
    size_t base_len = strlen(base.source), bk_start = 0;
    rc = ep_apply_kernel_text(base.source, base_len, e.kernel, &base_k, &bk_start);
    if (rc != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_BASE_NO_KERNEL),
                e.kernel, hk_strerror(rc));
        goto out;
    }
    if ((rc = ep_change_of(base.source, base_len, base_k, bk_start, v.source, strlen(v.source),
                           e.kernel, &ch)) != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_CHANGE), v.number, hk_strerror(rc));
        goto out;
    }
    uint32_t at_a = 0, at_b = 0;
    ep_place place = ep_change_place(&ch, base.source, base_len, base_k, cur, cur_len, &at_a,
                                     &at_b);
    if (place == EP_PLACE_STALE) {
        ec = refuse_changed_kernel(&e, &v, base_k, cur, cur_len);
        goto out;
    }
    if (!ch.ver_has_kernel) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_VER_NO_KERNEL), v.number, e.kernel);
        goto out;
    }
    if (place == EP_PLACE_STALE_FILE) {
        fprintf(stderr,
                hk_tr(HK_MSG_CLI_APPLY_STALE_FILE),
                v.number, e.file, e.kernel, ch.outside_line, (long long)e.id, (long long)e.id);
        ec = EXIT_STALE;
        goto out;
    }

    /* the new text: the change in place (the verified text itself when the file is as the
     * episode started), or the file as it is when it already holds the version's kernel */
    const char *nt = place == EP_PLACE_AT ? ch.new_text : "";
    size_t ntl = strlen(nt);
    size_t next_len = cur_len - (at_b - at_a) + ntl;
    next = hk_malloc(next_len + 1);
    if (next) {
        memcpy(next, cur, at_a);
        memcpy(next + at_a, nt, ntl);
        memcpy(next + at_a + ntl, cur + at_b, cur_len - at_b);
        next[next_len] = '\0';
    }
    int launch_refused = 0;
    if (!next ||
        apply_launch(&e, &v, &base, &next, &next_len, &launch_msg, &launch_refused) != HK_OK) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_APPLY_OOM));
        goto out;
    }
    if (launch_refused) {
        fprintf(stderr,
                hk_tr(launch_refused == 2 ? HK_MSG_CLI_APPLY_REFUSED_MUL : HK_MSG_CLI_APPLY_REFUSED_DIV),
                launch_msg, (long long)e.id);
        ec = EXIT_STALE;
        goto out;
    }
    const store_history_row *row = row_by_id(rows, n_rows, v.id);
    char sp[64] = "-";
    if (row)
        fmt_speedup(row, sp, sizeof sp);
    if (next_len == cur_len && memcmp(next, cur, cur_len) == 0) {
        printf(hk_tr(HK_MSG_CLI_APPLY_ALREADY), e.file, v.number, e.kernel);
        ec = EXIT_OK;
        goto out;
    }
    if (dry) {
        char *la = hk_asprintf("%s", e.file), *lb = hk_asprintf("%s (v%d)", e.file, v.number);
        print_diff(stdout, cur, cur_len, next, next_len, la ? la : "a", lb ? lb : "b");
        hk_free(la);
        hk_free(lb);
        printf(hk_tr(HK_MSG_CLI_APPLY_DRY), v.number, sp,
               (long long)e.id, e.file);
        if (launch_msg)
            printf("%s\n", launch_msg);
        print_flags_note(&v, &base);
        ec = EXIT_OK;
        goto out;
    }
    /* where the kernel is now: a helper the launch needed may sit above it */
    const char *kat = memmem(next, next_len, ch.after, strlen(ch.after));
    int kernel_line = line_of(next, kat ? (uint32_t)(kat - next) : at_a);
    rc = write_atomic(e.file, next, next_len, st.st_mode);
    if (rc != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_APPLY_WRITE), e.file, hk_strerror(rc));
        goto out;
    }
    printf(hk_tr(HK_MSG_CLI_APPLY_DONE), v.number, sp,
           (long long)e.id, e.file, e.kernel, kernel_line);
    if (launch_msg)
        printf("%s\n", launch_msg);
    print_flags_note(&v, &base);
    ec = EXIT_OK;
out:
    ep_change_free(&ch);
    hk_free(base_k);
    hk_free(cur);
    hk_free(next);
    hk_free(launch_msg);
    store_history_free(rows, n_rows);
    store_version_clear(&v);
    store_version_clear(&base);
    store_episode_clear(&e);
    store_close(db);
    hk_free(path);
    return ec;
}
