/* `hkls skills`: loads and validates the skills knowledge base (server/skills) and lists
 * it, filtered by arch and bottleneck class, with each skill's record from the history
 * database when one exists, in the order the engine would try them. A broken skill
 * file is reported (every problem, FILE: KEY: why) and the command exits 1. */
#include "cli/cli.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "core/i18n.h"
#include "episode/episode.h"
#include "skills/skills.h"
#include "store/store.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* Room for every problem of a badly broken tree (the loader caps its own list). */
#define SKILLS_ERR_MAX (64 * 1024)

static void usage(FILE *f)
{
    fputs(hk_tr(HK_MSG_CLI_SKILLS_USAGE), f);
}

static int opt_value(int argc, char **argv, int *i, const char *name, const char **val)
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
        fprintf(stderr, hk_tr(HK_MSG_CLI_SKILLS_NEEDS_VALUE), name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

static const store_skill_stat *find_stat(const store_skill_stat *st, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (st[i].skill_id && !strcmp(st[i].skill_id, id))
            return &st[i];
    return NULL;
}

/* "2/3 helped on 2 kernels, mean 1.85x, best 2.40x" or "untried". */
static void format_record(const store_skill_stat *st, char *out, size_t len)
{
    if (!st || st->tried <= 0) {
        snprintf(out, len, "%s", hk_tr(HK_MSG_CLI_SKILLS_UNTRIED));
        return;
    }
    int n = snprintf(out, len,
                     hk_tr(st->kernels == 1 ? HK_MSG_CLI_SKILLS_HELPED_ONE : HK_MSG_CLI_SKILLS_HELPED),
                     (long long)st->helped, (long long)st->tried, (long long)st->kernels_helped,
                     (long long)st->kernels);
    if (n >= 0 && (size_t)n < len && isfinite(st->mean_speedup))
        n += snprintf(out + n, len - (size_t)n, hk_tr(HK_MSG_CLI_SKILLS_MEAN), st->mean_speedup);
    if (n >= 0 && (size_t)n < len && isfinite(st->best_speedup))
        snprintf(out + n, len - (size_t)n, hk_tr(HK_MSG_CLI_SKILLS_BEST), st->best_speedup);
    hk_utf8_trim(out);
}

static void join_hardware(const sk_skill *sk, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; i < sk->n_hardware; i++) {
        if (i)
            strncat(out, ",", len - strlen(out) - 1);
        strncat(out, sk->hardware[i], len - strlen(out) - 1);
    }
}

/* NAN-safe number: null for an unknown value. New reference (NULL on failure). */
static json_t *json_num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* The skill and its record as JSON. New reference, NULL on allocation failure. */
static json_t *skill_json(const sk_skill *sk, const store_skill_stat *st, bool have_db)
{
    json_t *o = json_object();
    json_t *hw = json_array();
    json_t *applies = json_object();
    json_t *metrics = json_object();
    json_t *rewrite = json_object();
    json_t *evidence = json_object();
    if (!o || !hw || !applies || !metrics || !rewrite || !evidence)
        goto fail;
    for (size_t i = 0; i < sk->n_hardware; i++)
        if (json_array_append_new(hw, json_string(sk->hardware[i])))
            goto fail;
    for (size_t i = 0; i < sk->n_metrics; i++) {
        json_t *t = json_object();
        if (!t || json_object_set_new(metrics, sk_metric_name(sk->metrics[i].metric), t))
            goto fail;
        if (!isnan(sk->metrics[i].min) && json_object_set_new(t, "min", json_real(sk->metrics[i].min)))
            goto fail;
        if (!isnan(sk->metrics[i].max) && json_object_set_new(t, "max", json_real(sk->metrics[i].max)))
            goto fail;
    }
    if (json_object_set_new(applies, "query", json_string(sk->query)) ||
        (sk->pattern && json_object_set_new(applies, "pattern", json_string(sk->pattern))) ||
        json_object_set_new(applies, "metrics", metrics))
        goto fail;
    metrics = NULL;
    if (json_object_set_new(rewrite, "name", json_string(sk->rewrite->name)) ||
        json_object_set(rewrite, "params", sk->params))
        goto fail;
    if (sk->evidence_sass && json_object_set_new(evidence, "sass", json_string(sk->evidence_sass)))
        goto fail;
    if (sk->has_evidence_metric &&
        json_object_set_new(evidence, "metric",
                            json_pack("{s:s, s:s}", "name", sk_metric_name(sk->evidence_metric),
                                      "change", sk->evidence_change > 0 ? "increase" : "decrease")))
        goto fail;
    if (json_object_set_new(o, "id", json_string(sk->id)) ||
        json_object_set_new(o, "title", json_string(sk->title)) ||
        json_object_set_new(o, "path", json_string(sk->path)) ||
        json_object_set_new(o, "hardware_dir", json_string(sk->hardware_dir)) ||
        json_object_set_new(o, "hardware", hw))
        goto fail;
    hw = NULL;
    if (json_object_set_new(o, "class", json_string(sk_class_name(sk->cls))) ||
        json_object_set_new(o, "applies", applies))
        goto fail;
    applies = NULL;
    if (json_object_set_new(o, "guidance", json_string(sk->guidance)) ||
        json_object_set_new(o, "rewrite", rewrite))
        goto fail;
    rewrite = NULL;
    if (json_object_set_new(o, "evidence", evidence))
        goto fail;
    evidence = NULL;
    if (have_db) {
        json_t *r = st ? json_pack("{s:I, s:I, s:I, s:I, s:o, s:o, s:I}", "tried",
                                   (json_int_t)st->tried, "helped", (json_int_t)st->helped,
                                   "kernels", (json_int_t)st->kernels, "kernels_helped",
                                   (json_int_t)st->kernels_helped, "mean_speedup",
                                   json_num_or_null(st->mean_speedup), "best_speedup",
                                   json_num_or_null(st->best_speedup), "last_ms",
                                   (json_int_t)st->last_ms)
                       : json_pack("{s:i, s:i}", "tried", 0, "helped", 0);
        if (!r || json_object_set_new(o, "record", r))
            goto fail;
    }
    return o;
fail:
    json_decref(o);
    json_decref(hw);
    json_decref(applies);
    json_decref(metrics);
    json_decref(rewrite);
    json_decref(evidence);
    return NULL;
}

/* Opens the database for the record: path when given (must exist), else the default
 * path when that file exists, else none (*db NULL, not an error). */
static int open_record_db(const char *path, store **db, char **used)
{
    *db = NULL;
    *used = NULL;
    char *p = NULL;
    bool explicit_path = path != NULL;
    if (path)
        p = hk_strdup(path);
    else if (ep_default_db_path(&p) != HK_OK)
        return EXIT_OK;
    if (!p) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_SKILLS_OOM));
        return EXIT_FAILED;
    }
    if (strcmp(p, ":memory:") != 0 && access(p, F_OK) != 0) {
        if (explicit_path) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_SKILLS_NO_DB), p);
            hk_free(p);
            return EXIT_FAILED;
        }
        hk_free(p);
        return EXIT_OK;
    }
    char why[512] = "";
    int rc = store_open_ex(p, 0, db, why, sizeof why);
    if (rc != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_SKILLS_DB_OPEN), p,
                why[0] ? why : hk_strerror(rc));
        hk_free(p);
        return EXIT_FAILED;
    }
    *used = p;
    return EXIT_OK;
}

int cli_skills(int argc, char **argv)
{
    hk_alloc_init_json();
    const char *dir_arg = NULL, *arch = NULL, *class_arg = NULL, *db_arg = NULL;
    bool as_json = false;
    for (int i = 1; i < argc; i++) {
        int m;
        if ((m = opt_value(argc, argv, &i, "--dir", &dir_arg)) ||
            (m = opt_value(argc, argv, &i, "--hardware", &arch)) ||
            (m = opt_value(argc, argv, &i, "--class", &class_arg)) ||
            (m = opt_value(argc, argv, &i, "--db", &db_arg))) {
            if (m < 0)
                return EXIT_USAGE;
        } else if (!strcmp(argv[i], "--json")) {
            as_json = true;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return EXIT_OK;
        } else {
            fprintf(stderr, hk_tr(HK_MSG_CLI_SKILLS_UNKNOWN_ARG), argv[i]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    enum sk_class cls = SK_CLASS_COUNT;
    if (class_arg && sk_class_parse(class_arg, &cls) != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_SKILLS_UNKNOWN_CLASS), class_arg);
        return EXIT_USAGE;
    }
    if (arch && !*arch) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_SKILLS_HARDWARE));
        return EXIT_USAGE;
    }

    int ec = EXIT_FAILED;
    char *dir = NULL, *db_path = NULL;
    char *err = NULL;
    sk_set *set = NULL;
    store *db = NULL;
    store_skill_stat *stats = NULL;
    size_t n_stats = 0;
    const sk_skill **list = NULL;
    size_t n = 0;
    json_t *out = NULL;

    if (dir_arg)
        dir = hk_strdup(dir_arg);
    else if (sk_default_dir(&dir) != HK_OK)
        dir = NULL;
    err = hk_malloc(SKILLS_ERR_MAX);
    if (!dir || !err) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_SKILLS_OOM));
        goto out;
    }
    int rc = sk_load_dir(dir, &set, err, SKILLS_ERR_MAX);
    if (rc != HK_OK) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_SKILLS_LOAD), dir,
                hk_strerror(rc), err);
        goto out;
    }
    ec = open_record_db(db_arg, &db, &db_path);
    if (ec != EXIT_OK)
        goto out;
    ec = EXIT_FAILED;
    if (db) {
        if (store_skill_stats(db, arch, &stats, &n_stats) != HK_OK) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_SKILLS_RECORD), db_path,
                    store_errmsg(db));
            goto out;
        }
        if (sk_order_by_record(set, stats, n_stats) != HK_OK) {
            fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_SKILLS_OOM));
            goto out;
        }
    }
    if (sk_for(set, arch, cls, &list, &n) != HK_OK) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_SKILLS_OOM));
        goto out;
    }

    if (as_json) {
        json_t *arr = json_array();
        out = json_pack("{s:s, s:o, s:o}", "dir", dir, "db",
                        db_path ? json_string(db_path) : json_null(), "skills", arr);
        if (!out) {
            fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_SKILLS_OOM));
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            json_t *s = skill_json(list[i], find_stat(stats, n_stats, list[i]->id), db != NULL);
            if (!s || json_array_append_new(arr, s)) {
                fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_SKILLS_OOM));
                goto out;
            }
        }
        if (json_dumpf(out, stdout, JSON_INDENT(2)) != 0)
            goto out;
        fputc('\n', stdout);
    } else {
        printf(hk_tr(n == 1 ? HK_MSG_CLI_SKILLS_COUNT_ONE : HK_MSG_CLI_SKILLS_COUNT), n, dir);
        if (arch)
            printf(hk_tr(HK_MSG_CLI_SKILLS_FOR), arch);
        if (class_arg)
            printf(hk_tr(HK_MSG_CLI_SKILLS_CLASS), class_arg);
        if (db_path)
            printf(hk_tr(HK_MSG_CLI_SKILLS_RECORD_FROM), db_path);
        printf("\n");
        if (n) {
            cli_table t;
            cli_table_init(&t, 5);
            const char *head[] = {"ID", hk_tr(HK_MSG_CLI_SKILLS_HEAD_HARDWARE),
                                  hk_tr(HK_MSG_CLI_SKILLS_HEAD_CLASS),
                                  hk_tr(HK_MSG_CLI_SKILLS_HEAD_REWRITE),
                                  hk_tr(db ? HK_MSG_CLI_SKILLS_HEAD_RECORD : HK_MSG_CLI_SKILLS_HEAD_TITLE)};
            cli_table_row(&t, head);
            for (size_t i = 0; i < n; i++) {
                char hw[128], rec[160];
                join_hardware(list[i], hw, sizeof hw);
                if (db)
                    format_record(find_stat(stats, n_stats, list[i]->id), rec, sizeof rec);
                const char *cells[] = {list[i]->id, hw, sk_class_name(list[i]->cls),
                                       list[i]->rewrite->name,
                                       db ? rec : list[i]->title};
                cli_table_row(&t, cells);
            }
            cli_table_print(&t, stdout, NULL);
            cli_table_free(&t);
        }
    }
    ec = fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
out:
    json_decref(out);
    hk_free(list);
    store_skill_stats_free(stats, n_stats);
    store_close(db);
    hk_free(db_path);
    sk_set_free(set);
    hk_free(err);
    hk_free(dir);
    return ec;
}
