/* compile_commands.json for spec inference, and the splitter of its command strings
 * (see ccdb.h). */
#include "spec/ccdb.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/strv.h"

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char **spec_split_command(const char *cmd)
{
    struct hk_strv sv = {0};
    struct hk_buf w;
    hk_buf_init(&w, strlen(cmd) + 1);
    const char *p = cmd;
    bool bad = false;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        hk_buf_reset(&w);
        bool any = false;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            any = true;
            if (*p == '\\' && p[1]) {
                hk_buf_append(&w, p + 1, 1);
                p += 2;
            } else if (*p == '\'') {
                const char *e = strchr(p + 1, '\'');
                if (!e) {
                    bad = true;
                    goto out;
                }
                hk_buf_append(&w, p + 1, (size_t)(e - p - 1));
                p = e + 1;
            } else if (*p == '"') {
                p++;
                while (*p && *p != '"') {
                    if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$'))
                        p++;
                    hk_buf_append(&w, p, 1);
                    p++;
                }
                if (*p != '"') {
                    bad = true;
                    goto out;
                }
                p++;
            } else {
                hk_buf_append(&w, p, 1);
                p++;
            }
        }
        if (any)
            hk_strv_push_own(&sv, hk_strdup(w.data ? w.data : ""));
    }
out:
    hk_buf_free(&w);
    if (bad) {
        sv.oom = true;
        hk_strv_done(&sv);
        return NULL;
    }
    return hk_strv_done(&sv);
}

/* dir/rel, or rel when it is absolute. New string. */
static char *join(const char *dir, const char *rel)
{
    return rel[0] == '/' ? hk_strdup(rel) : hk_asprintf("%s/%s", dir, rel);
}

/* The real path of dir/rel when it is an existing directory (new string), else NULL;
 * *oom on allocation failure. */
static char *real_dir(const char *dir, const char *rel, bool *oom)
{
    char *j = join(dir, rel);
    if (!j) {
        *oom = true;
        return NULL;
    }
    char buf[PATH_MAX];
    struct stat st;
    char *out = NULL;
    if (realpath(j, buf) && stat(buf, &st) == 0 && S_ISDIR(st.st_mode) && !(out = hk_strdup(buf)))
        *oom = true;
    hk_free(j);
    return out;
}

/* The include directories of one entry's argv (argv[0] the compiler). */
static char **entry_dirs(char **argv, const char *dir)
{
    struct hk_strv sv = {0};
    for (size_t i = 1; argv[i] && !sv.oom; i++) {
        const char *a = argv[i], *val = NULL;
        if (!strcmp(a, "-I") || !strcmp(a, "-isystem") || !strcmp(a, "-iquote") ||
            !strcmp(a, "--include-path")) {
            if (!(val = argv[i + 1]))
                break;
            i++;
        } else if (!strncmp(a, "-I", 2)) {
            val = a + 2;
        } else if (!strncmp(a, "--include-path=", 15)) {
            val = a + 15;
        } else if (!strncmp(a, "-isystem", 8)) {
            val = a + 8;
        }
        if (!val || !*val)
            continue;
        char *d = real_dir(dir, val, &sv.oom);
        if (!d)
            continue;
        bool seen = false;
        for (size_t k = 0; k < sv.n && !seen; k++)
            seen = !strcmp(sv.v[k], d);
        if (seen)
            hk_free(d);
        else
            hk_strv_push_own(&sv, d);
    }
    return hk_strv_done(&sv);
}

/* The folder of path (new string). */
static char *dir_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s == path ? hk_strdup("/") : hk_strndup(path, s ? (size_t)(s - path) : 0);
}

/* Finds the entry for real (exact, else same folder) in db's JSON. HK_OK with *dirs
 * filled or left NULL. */
static int from_db(json_t *j, const char *db_path, const char *real, char ***dirs)
{
    char *src_dir = dir_of(real), *db_dir = dir_of(db_path);
    if (!src_dir || !db_dir) {
        hk_free(src_dir);
        hk_free(db_dir);
        return HK_ENOMEM;
    }
    int rc = HK_OK;
    json_t *best = NULL;
    char *best_dir = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(j, i, e) {
        const char *file = json_string_value(json_object_get(e, "file"));
        const char *dir0 = json_string_value(json_object_get(e, "directory"));
        if (!file || !dir0)
            continue;
        /* The format wants an absolute directory; a relative one is taken from the
         * database's own folder, as the editor does (lsp/config.c), so a committed
         * fixture can move. */
        char *dir = join(db_dir, dir0);
        char *f = dir ? join(dir, file) : NULL, buf[PATH_MAX];
        if (!f) {
            hk_free(dir);
            rc = HK_ENOMEM;
            break;
        }
        bool exact = false, beside = false;
        if (realpath(f, buf)) {
            exact = !strcmp(buf, real);
            char *d = exact ? NULL : dir_of(buf);
            beside = d && !strcmp(d, src_dir);
            hk_free(d);
        }
        hk_free(f);
        if (exact || (beside && !best)) {
            best = e;
            hk_free(best_dir);
            best_dir = dir;
            if (exact)
                break;
        } else {
            hk_free(dir);
        }
    }
    if (rc == HK_OK && best) {
        json_t *args = json_object_get(best, "arguments");
        const char *cmd = json_string_value(json_object_get(best, "command"));
        char **argv = NULL;
        if (json_is_array(args)) {
            struct hk_strv sv = {0};
            size_t k;
            json_t *a;
            json_array_foreach(args, k, a)
                if (json_is_string(a))
                    hk_strv_push_own(&sv, hk_strdup(json_string_value(a)));
            argv = hk_strv_done(&sv);
            if (!argv)
                rc = HK_ENOMEM;
        } else if (cmd) {
            argv = spec_split_command(cmd); /* NULL also for an unbalanced quote: none */
        }
        if (argv && argv[0]) {
            char **d = entry_dirs(argv, best_dir);
            if (!d)
                rc = HK_ENOMEM;
            else if (!d[0])
                hk_strv_free(d);
            else
                *dirs = d;
        }
        hk_strv_free(argv);
    }
    hk_free(best_dir);
    hk_free(src_dir);
    hk_free(db_dir);
    return rc;
}

int spec_ccdb_include_dirs(const char *src, char ***dirs, char **db)
{
    *dirs = NULL;
    if (db)
        *db = NULL;
    char real[PATH_MAX];
    if (!src || !realpath(src, real))
        return HK_OK;
    char *dir = dir_of(real);
    if (!dir)
        return HK_ENOMEM;
    int rc = HK_OK;
    static const char *const names[] = {"compile_commands.json", "build/compile_commands.json"};
    for (int level = 0; level <= SPEC_CCDB_LEVELS && rc == HK_OK; level++) {
        char *path = NULL;
        for (size_t n = 0; n < HK_ARRAY_LEN(names) && !path; n++) {
            char *p = hk_asprintf("%s/%s", strcmp(dir, "/") ? dir : "", names[n]);
            struct stat st;
            if (!p)
                rc = HK_ENOMEM;
            else if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
                path = p;
            else
                hk_free(p);
        }
        if (path) {
            /* the nearest database decides, even when it has no entry for the file */
            char *text = NULL;
            size_t len = 0;
            if (hk_read_file(path, SPEC_CCDB_MAX_BYTES, &text, &len) == HK_OK) {
                json_t *j = json_loadb(text, len, 0, NULL);
                if (json_is_array(j))
                    rc = from_db(j, path, real, dirs);
                json_decref(j);
            }
            hk_free(text);
            if (rc == HK_OK && *dirs && db && !(*db = path))
                rc = HK_ENOMEM;
            if (!db || !*dirs)
                hk_free(path);
            break;
        }
        char *slash = strrchr(dir, '/');
        if (rc || !slash || slash == dir)
            break;
        *slash = '\0';
    }
    hk_free(dir);
    if (rc) {
        hk_strv_free(*dirs);
        *dirs = NULL;
        if (db) {
            hk_free(*db);
            *db = NULL;
        }
    }
    return rc;
}
