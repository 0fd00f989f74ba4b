/* Settings and compile flags. Three layers with the same keys (docs/config.md):
 * defaults, the workspace file .hyperkernel.json, and the client's settings
 * (initializationOptions, replaced by workspace/didChangeConfiguration). Flags for a
 * file come from the settings plus its entry in compile_commands.json. Files are small
 * and read only when their mtime changes. */
#include "lsp/config.h"
#include "lsp/lenses.h"

#include "lsp/loopwatch.h"
#include "lsp/base.h"
#include "lsp/trust.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/strv.h"
#include "spec/ccdb.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- files ---- */

/* Reads a whole small file. HK_OK, HK_ENOENT, HK_ETOOBIG, HK_EIO, HK_ENOMEM. */
static int read_file(const char *path, size_t max, char **out, size_t *len)
{
    int rc = HK_OK;
    struct hk_buf b;
    hk_buf_init(&b, max);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? HK_ENOENT : HK_EIO;
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = HK_EIO;
            goto out;
        }
        if (n == 0)
            break;
        rc = hk_buf_append(&b, chunk, (size_t)n);
        if (rc)
            goto out;
    }
    *len = b.len;
    *out = hk_buf_steal(&b);
    if (!*out)
        *out = hk_strdup("");
    if (!*out)
        rc = HK_ENOMEM;
out:
    close(fd);
    hk_buf_free(&b);
    return rc;
}

static bool same_mtime(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static char *join_path(const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir)
        return hk_strdup(rel);
    return hk_asprintf("%s/%s", dir, rel);
}

/* Absolute, normalised path: realpath when the file exists, else the joined text. */
static char *norm_path(const char *dir, const char *p)
{
    char *j = join_path(dir, p);
    if (!j)
        return NULL;
    char buf[PATH_MAX];
    if (realpath(j, buf)) {
        hk_free(j);
        return hk_strdup(buf);
    }
    return j;
}

/* ---- the settings layers ---- */

void lsp_config_init(struct lsp_config *c)
{
    memset(c, 0, sizeof *c);
    c->backend = CC_NVIDIA;
    c->compile_enabled = true;
    c->debounce_ms = 500;
    c->timeout_ms = 60000;
    c->log_level = HK_LOG_WARN;
    lsp_ep_config_init(&c->ep);
}

void lsp_config_free(struct lsp_config *c)
{
    hk_free(c->arch);
    hk_strv_free(c->flags);
    hk_strv_free(c->include_paths);
    hk_free(c->nvcc);
    hk_free(c->hipcc);
    lsp_ep_config_free(&c->ep);
    memset(c, 0, sizeof *c);
}

/* A key given either nested ({"compile": {"enabled": ...}}) or dotted
 * ({"compile.enabled": ...}); the nested form wins when both are present. */
static json_t *cfg_get(json_t *o, const char *section, const char *key)
{
    if (!section)
        return json_object_get(o, key);
    json_t *v = json_object_get(json_object_get(o, section), key);
    if (v)
        return v;
    char dotted[96];
    snprintf(dotted, sizeof dotted, "%s.%s", section, key);
    return json_object_get(o, dotted);
}

static const char *const known_keys[] = {
    "target", "compile", "log", "compile.enabled", "compile.debounceMs", "compile.timeoutMs",
    "compile.flags", "compile.includePaths", "compile.nvcc", "compile.hipcc", "log.level",
    "isTrusted", "language",
};
static const char *const compile_keys[] = {"enabled", "debounceMs", "timeoutMs", "flags",
                                           "includePaths", "nvcc", "hipcc"};

static bool in_list(const char *k, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k, list[i]) == 0)
            return true;
    return false;
}

/* Reads a string array; false (and a message) on a wrong shape. */
static bool str_array(struct lsp_server *s, const char *from, const char *key, json_t *v,
                      const char *base_dir, char ***out)
{
    if (!json_is_array(v) || json_array_size(v) > LSP_MAX_FLAGS) {
        lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_STR_ARRAY), from,
                        key, LSP_MAX_FLAGS);
        return false;
    }
    struct hk_strv sv = {0};
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        if (!json_is_string(e) || json_string_length(e) != strlen(json_string_value(e))) {
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_NOT_STRING), from, key,
                            i);
            sv.oom = true;
            hk_strv_done(&sv);
            return false;
        }
        if (base_dir)
            hk_strv_push_own(&sv, join_path(base_dir, json_string_value(e)));
        else
            hk_strv_push(&sv, json_string_value(e));
    }
    char **nv = hk_strv_done(&sv);
    if (!nv)
        return false;
    hk_strv_free(*out);
    *out = nv;
    return true;
}

static void set_str(char **dst, const char *v)
{
    char *n = hk_strdup(v);
    if (n) {
        hk_free(*dst);
        *dst = n;
    }
}

static void apply_layer(struct lsp_server *s, struct lsp_config *c, json_t *o, const char *from)
{
    if (!json_is_object(o))
        return;
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        if (strcmp(k, "hyperkernel") == 0)
            continue;
        if (!in_list(k, known_keys, HK_ARRAY_LEN(known_keys)) && !lsp_ep_config_key(k))
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_UNKNOWN), from, k);
    }
    json_t *comp = json_object_get(o, "compile");
    if (comp && !json_is_object(comp))
        lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_COMPILE_OBJECT), from);
    json_object_foreach(json_is_object(comp) ? comp : NULL, k, v) {
        if (!in_list(k, compile_keys, HK_ARRAY_LEN(compile_keys)))
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_UNKNOWN_COMPILE), from, k);
    }
    if ((v = cfg_get(o, NULL, "target"))) {
        enum cc_backend be;
        char *arch = NULL;
        if (json_is_string(v) && cc_parse_target(json_string_value(v), &be, &arch) == HK_OK) {
            hk_free(c->arch);
            c->arch = arch;
            c->backend = be;
            c->target_set = true;
        } else {
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_TARGET),
                            from, cc_nvidia_archs_text());
        }
    }
    if ((v = cfg_get(o, "compile", "enabled"))) {
        if (json_is_boolean(v))
            c->compile_enabled = json_is_true(v);
        else
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_COMPILE_ENABLED), from);
    }
    if ((v = cfg_get(o, "compile", "debounceMs"))) {
        if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 60000)
            c->debounce_ms = (unsigned)json_integer_value(v);
        else
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_DEBOUNCE),
                            from);
    }
    if ((v = cfg_get(o, "compile", "timeoutMs"))) {
        if (json_is_integer(v) && json_integer_value(v) >= 1000 &&
            json_integer_value(v) <= 600000)
            c->timeout_ms = (unsigned)json_integer_value(v);
        else
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_TIMEOUT),
                            from);
    }
    if ((v = cfg_get(o, "compile", "flags")))
        str_array(s, from, "compile.flags", v, NULL, &c->flags);
    if ((v = cfg_get(o, "compile", "includePaths")))
        str_array(s, from, "compile.includePaths", v, s->root, &c->include_paths);
    if ((v = cfg_get(o, "compile", "nvcc"))) {
        if (json_is_string(v) && json_string_length(v) > 0)
            set_str(&c->nvcc, json_string_value(v));
        else
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_NVCC), from);
    }
    if ((v = cfg_get(o, "compile", "hipcc"))) {
        if (json_is_string(v) && json_string_length(v) > 0)
            set_str(&c->hipcc, json_string_value(v));
        else
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_HIPCC), from);
    }
    lsp_ep_config_apply(s, &c->ep, o, from);
    if ((v = cfg_get(o, NULL, "language"))) {
        const char *l = json_string_value(v);
        if (l && !strcmp(l, "auto")) {
            c->language_set = false;
        } else if (l && (!strcmp(l, "en") || !strcmp(l, "zh-CN"))) {
            c->language_set = true;
            c->language = hk_i18n_parse(l);
        } else {
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_LANGUAGE),
                            from);
        }
    }
    if ((v = cfg_get(o, "log", "level"))) {
        enum hk_log_level lv;
        if (json_is_string(v) && hk_log_parse_level(json_string_value(v), &lv) == HK_OK) {
            c->log_level = lv;
            c->log_level_set = true;
        } else {
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_LOG_LEVEL),
                            from);
        }
    }
}

/* A new copy of the file's settings without lsp_trust_keys; the names of those it had
 * go to ignored ("a,b"). NULL when out of memory (then nothing of the file applies). */
static json_t *untrusted_view(json_t *file, struct hk_buf *ignored)
{
    json_t *c = json_deep_copy(file);
    for (size_t i = 0; c && i < lsp_trust_n_keys; i++) {
        const char *sect = lsp_trust_keys[i].section, *key = lsp_trust_keys[i].key;
        bool had = false;
        char dotted[96];
        if (sect) {
            json_t *nested = json_object_get(c, sect);
            if (json_is_object(nested) && json_object_get(nested, key))
                had |= json_object_del(nested, key) == 0;
            snprintf(dotted, sizeof dotted, "%s.%s", sect, key);
        } else {
            snprintf(dotted, sizeof dotted, "%s", key);
        }
        if (json_object_get(c, dotted))
            had |= json_object_del(c, dotted) == 0;
        if (had && hk_buf_printf(ignored, "%s%s", ignored->len ? "," : "", dotted)) {
            json_decref(c);
            c = NULL;
        }
    }
    /* Include paths run nothing -- unless the compiler driver's shell would read them
     * (nvcc leaves `...` alone): a list with such an entry is dropped whole. */
    json_t *comp = json_object_get(c, "compile");
    json_t *lists[2] = {json_is_object(comp) ? json_object_get(comp, "includePaths") : NULL,
                        json_object_get(c, "compile.includePaths")};
    for (int k = 0; c && k < 2; k++) {
        size_t i;
        json_t *e;
        bool bad = false;
        json_array_foreach(lists[k], i, e) {
            const char *p = json_string_value(e);
            bad |= p && !cc_arg_shell_safe(CC_NVIDIA, p);
        }
        if (!bad)
            continue;
        if (k == 0)
            json_object_del(comp, "includePaths");
        else
            json_object_del(c, "compile.includePaths");
        if (!strstr(ignored->data ? ignored->data : "", "compile.includePaths") &&
            hk_buf_printf(ignored, "%scompile.includePaths", ignored->len ? "," : "")) {
            json_decref(c);
            c = NULL;
        }
    }
    return c;
}

/* The language a layer's valid "language" chooses (the client's settings over the file's),
 * else the client's locale's, else the environment's: what lsp_config_rebuild sets, known
 * before the layers are applied and warned about. */
static enum hk_lang settings_language(struct lsp_server *s, json_t *file, json_t *client)
{
    json_t *layers[] = {client, file};
    for (size_t i = 0; i < HK_ARRAY_LEN(layers); i++) {
        const char *l =
            json_is_object(layers[i]) ? json_string_value(cfg_get(layers[i], NULL, "language")) : NULL;
        if (l && (!strcmp(l, "en") || !strcmp(l, "zh-CN")))
            return hk_i18n_parse(l);
        if (l && !strcmp(l, "auto"))
            break; /* the client's "auto" undoes the file's choice, as in apply_layer */
    }
    return hk_i18n_pick(s->client_locale, hk_i18n_env_locale());
}

void lsp_config_rebuild(struct lsp_server *s)
{
    enum hk_lang lang0 = hk_i18n_lang();
    char *nv0 = lsp_nvidia_target(s); /* the codeLens lenses show both */
    struct lsp_config c;
    lsp_config_init(&c);
    bool trusted = lsp_trusted(s);
    json_t *file = s->cfg_file_json, *view = NULL;
    struct hk_buf ignored;
    hk_buf_init(&ignored, 4096);
    if (file && !trusted)
        file = view = untrusted_view(file, &ignored);
    /* the warnings on the settings below speak the language these settings choose */
    hk_i18n_set(settings_language(s, file, s->cfg_client_json));
    apply_layer(s, &c, file, LSP_CONFIG_FILE);
    apply_layer(s, &c, s->cfg_client_json, hk_tr(HK_MSG_LSP_CLIENT_SETTINGS));
    json_decref(view);
    lsp_config_free(&s->cfg);
    s->cfg = c;
    bool newly_trusted = trusted && !s->cfg_trusted;
    s->cfg_trusted = trusted;
    if (c.log_level_set && !s->cli_log_level)
        hk_log_set_level(c.log_level);
    /* a language chosen in the settings, else the client's, else the environment's */
    hk_i18n_set(c.language_set ? c.language
                               : hk_i18n_pick(s->client_locale, hk_i18n_env_locale()));
    HK_DEBUG("config: target %s:%s%s, compile %s, debounce %u ms, folder %s",
             c.backend == CC_DCU ? "dcu" : "nvidia", c.arch ? c.arch : "(default)",
             c.target_set ? "" : " (by extension)", c.compile_enabled ? "on" : "off",
             c.debounce_ms, trusted ? "trusted" : "not trusted");
    lsp_trust_set_ignored(s, ignored.data ? ignored.data : "");
    hk_buf_free(&ignored);
    /* Compiles ran with the untrusted settings: redo them with the folder's own. */
    if (newly_trusted && s->init_replied && s->docs)
        lsp_emit(s, LSP_EV_RECHECK_ALL, NULL, NULL);
    char *nv1 = lsp_nvidia_target(s);
    if (s->docs && (lang0 != hk_i18n_lang() || !nv0 || !nv1 || strcmp(nv0, nv1)))
        lsp_emit(s, LSP_EV_LENSES_STALE, NULL, NULL);
    hk_free(nv0);
    hk_free(nv1);
}

bool lsp_config_refresh_file(struct lsp_server *s)
{
    if (!s->root)
        return false;
    char *path = hk_asprintf("%s/%s", s->root, LSP_CONFIG_FILE);
    if (!path)
        return false;
    bool changed = false;
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (!exists) {
        if (s->cfg_file_seen) {
            json_decref(s->cfg_file_json);
            s->cfg_file_json = NULL;
            hk_free(s->cfg_file_text);
            s->cfg_file_text = NULL;
            s->cfg_file_seen = false;
            changed = true;
        }
        goto out;
    }
    if (s->cfg_file_seen && same_mtime(&st.st_mtim, &s->cfg_file_mtime))
        goto out;
    s->cfg_file_seen = true;
    s->cfg_file_mtime = st.st_mtim;
    changed = true;
    json_decref(s->cfg_file_json);
    s->cfg_file_json = NULL;
    hk_free(s->cfg_file_text);
    s->cfg_file_text = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc = read_file(path, LSP_CONFIG_MAX_BYTES, &text, &len);
    if (rc) {
        lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_CANNOT_READ), path, hk_strerror(rc));
        goto out;
    }
    json_error_t err;
    json_t *j = json_loadb(text, len, 0, &err);
    s->cfg_file_text = text;
    if (!j || !json_is_object(j)) {
        lsp_show_message(s, 2, hk_tr(HK_MSG_SHOW_CONFIG_BAD), path, j ? 1 : err.line,
                         j ? hk_tr(HK_MSG_SHOW_NOT_AN_OBJECT) : err.text);
        json_decref(j);
        goto out;
    }
    s->cfg_file_json = j;
    HK_INFO("config: read %s", path);
out:
    hk_free(path);
    if (changed && s->state != LSP_UNINIT)
        lsp_config_rebuild(s);
    return changed;
}

/* ---- compile_commands.json ---- */

void lsp_ccdb_free(struct lsp_ccdb *db)
{
    for (size_t i = 0; i < db->n; i++) {
        hk_free(db->entries[i].file);
        hk_strv_free(db->entries[i].flags);
    }
    hk_free(db->entries);
    hk_free(db->path);
    memset(db, 0, sizeof *db);
}

/* Keeps the flags of a compile command that change how a file parses: include paths,
 * macros, forced includes, the language standard and nvcc's language extensions.
 * Output, arch and mode flags are ours to choose. */
static char **ccdb_flags(char **argv, const char *dir)
{
    struct hk_strv sv = {0};
    for (size_t i = 1; argv[i]; i++) {
        const char *a = argv[i];
        const char *next = argv[i + 1];
        if (!strcmp(a, "-I") || !strcmp(a, "-isystem") || !strcmp(a, "-include") ||
            !strcmp(a, "--include-path") || !strcmp(a, "-iquote")) {
            if (!next)
                break;
            hk_strv_push(&sv, strcmp(a, "--include-path") == 0 ? "-I" : a);
            hk_strv_push_own(&sv, strcmp(a, "-include") == 0 ? hk_strdup(next)
                                                          : join_path(dir, next));
            i++;
        } else if (!strncmp(a, "-I", 2)) {
            char *p = join_path(dir, a + 2);
            hk_strv_push_own(&sv, p ? hk_asprintf("-I%s", p) : NULL);
            hk_free(p);
        } else if (!strcmp(a, "-D") || !strcmp(a, "-U")) {
            if (!next)
                break;
            hk_strv_push_own(&sv, hk_asprintf("%s%s", a, next));
            i++;
        } else if (!strncmp(a, "-D", 2) || !strncmp(a, "-U", 2) || !strncmp(a, "-std=", 5) ||
                   !strncmp(a, "--std=", 6) || !strncmp(a, "--expt-", 7) ||
                   !strcmp(a, "--extended-lambda")) {
            hk_strv_push(&sv, a);
        } else if ((!strcmp(a, "-std") || !strcmp(a, "--std")) && next) {
            hk_strv_push_own(&sv, hk_asprintf("-std=%s", next));
            i++;
        }
    }
    return hk_strv_done(&sv);
}

/* ---- reading compile_commands.json off the loop ----
 * A CMake build of a large project writes tens of megabytes here; reading and parsing it
 * would stall the loop for as long (STYLE.md 9, issue 14). The stat that says whether it
 * changed stays on the loop; the read, the JSON parse and the flag extraction run on the
 * libuv pool into a database of their own, which the after callback publishes in s->ccdb.
 * Until then lsp_compile_options answers HK_ESTATE and the compile waits: compiling with
 * the flags of no database (or of the old one) would publish diagnostics the next compile
 * takes back. When the new database is published, the open documents are compiled again
 * (their flags may have changed). */
struct ccdb_job {
    uv_work_t req;
    struct lsp_server *s;
    struct lsp_ccdb db;       /* being built; db.path and db.mtime set on the loop */
    char *msg;                /* why it could not be read, or NULL (new string) */
};

/* A database that is replaced (or whose file is gone) is freed on the pool: one of 20,000
 * entries is some 300,000 frees, 30 ms of the loop thread on the 2-core machine
 * (bench/results/lsp-2026-12-05-s28-busy.md). On the loop only when the pool refuses it. */
struct ccdb_drop_job {
    uv_work_t req;
    struct lsp_ccdb db;
};

static void ccdb_drop_work(uv_work_t *req)
{
    hk_thread_background();
    struct ccdb_drop_job *d = req->data;
    lsp_ccdb_free(&d->db);
}

static void ccdb_drop_after(uv_work_t *req, int status)
{
    struct ccdb_drop_job *d = req->data;
    if (status == UV_ECANCELED)
        lsp_ccdb_free(&d->db);
    hk_free(d);
}

/* Frees *db's contents off the loop and clears it. */
static void ccdb_drop(struct lsp_server *s, struct lsp_ccdb *db)
{
    if (db->n && s->loop && !s->stopped) {
        struct ccdb_drop_job *d = hk_calloc(1, sizeof *d);
        if (d) {
            d->req.data = d;
            d->db = *db;
            if (uv_queue_work(s->loop, &d->req, ccdb_drop_work, ccdb_drop_after) == 0) {
                memset(db, 0, sizeof *db);
                return;
            }
            hk_free(d);
        }
    }
    lsp_ccdb_free(db);
}

/* Pool thread: reads and parses j->db.path into j->db. Touches nothing of the server's. */
static void ccdb_work(uv_work_t *req)
{
    hk_thread_background();
    struct ccdb_job *jb = req->data;
    struct lsp_ccdb *db = &jb->db;
    const char *path = db->path;
    char *text = NULL;
    size_t len = 0;
    json_t *j = NULL;
    char *db_dir = hk_strdup(path);
    char *slash = db_dir ? strrchr(db_dir, '/') : NULL;
    if (slash)
        *slash = '\0';
    int rc = read_file(path, LSP_COMPILE_DB_MAX_BYTES, &text, &len);
    if (rc) {
        jb->msg = hk_asprintf(hk_tr(HK_MSG_LOG_CFG_CANNOT_READ), path, hk_strerror(rc));
        goto out;
    }
    json_error_t err;
    j = json_loadb(text, len, 0, &err);
    if (!json_is_array(j)) {
        jb->msg = hk_asprintf(hk_tr(HK_MSG_LOG_CFG_NOT_ARRAY), path, j ? "" : err.text);
        goto out;
    }
    size_t n = json_array_size(j);
    db->entries = hk_calloc(n ? n : 1, sizeof *db->entries);
    if (!db->entries)
        goto out;
    size_t i;
    json_t *e;
    json_array_foreach(j, i, e) {
        const char *file = json_string_value(json_object_get(e, "file"));
        const char *dir0 = json_string_value(json_object_get(e, "directory"));
        json_t *args = json_object_get(e, "arguments");
        const char *cmd = json_string_value(json_object_get(e, "command"));
        if (!file || !dir0)
            continue;
        /* The format wants an absolute directory; a relative one is taken relative to
         * the database's own folder (so a committed fixture can be relocated). */
        char *dir = dir0[0] == '/' ? hk_strdup(dir0) : join_path(db_dir, dir0);
        if (!dir)
            continue;
        char **argv = NULL;
        if (json_is_array(args)) {
            struct hk_strv sv = {0};
            size_t k;
            json_t *a;
            json_array_foreach(args, k, a) {
                if (json_is_string(a))
                    hk_strv_push(&sv, json_string_value(a));
            }
            argv = hk_strv_done(&sv);
        } else if (cmd) {
            argv = spec_split_command(cmd);
        }
        if (!argv) {
            hk_free(dir);
            continue;
        }
        char **flags = argv[0] ? ccdb_flags(argv, dir) : NULL;
        hk_strv_free(argv);
        char *norm = norm_path(dir, file);
        hk_free(dir);
        if (!flags || !norm) {
            hk_strv_free(flags);
            hk_free(norm);
            continue;
        }
        db->entries[db->n++] = (struct lsp_ccdb_entry){norm, flags};
    }
out:
    json_decref(j);
    hk_free(text);
    hk_free(db_dir);
}

static void ccdb_after(uv_work_t *req, int status)
{
    struct ccdb_job *jb = req->data;
    struct lsp_server *s = jb->s;
    lsp_loopwatch_note(s->loopwatch, "(compile_commands.json read)");
    s->ccdb_job = NULL;
    if (status == UV_ECANCELED || s->stopped) {
        lsp_ccdb_free(&jb->db);
        goto out;
    }
    if (jb->msg)
        lsp_log_message(s, 2, "%s", jb->msg);
    else
        HK_INFO("compile_commands: %zu entries from %s", jb->db.n, jb->db.path);
    ccdb_drop(s, &s->ccdb);
    s->ccdb = jb->db; /* loaded, also when unreadable: its mtime says when to try again */
    if (s->state == LSP_RUNNING)
        lsp_emit(s, LSP_EV_RECHECK_ALL, NULL, NULL);
out:
    hk_free(jb->msg);
    hk_free(jb);
}

/* Looks for compile_commands.json in the root, then in root/build, and queues a read when
 * it is new or changed. true when s->ccdb is current; false while a read is on the pool. */
static bool ccdb_refresh(struct lsp_server *s)
{
    if (s->ccdb_job)
        return false; /* a newer change is seen when this read is published */
    if (!s->root)
        return true;
    static const char *const where[] = {"compile_commands.json", "build/compile_commands.json"};
    for (size_t i = 0; i < HK_ARRAY_LEN(where); i++) {
        char *path = hk_asprintf("%s/%s", s->root, where[i]);
        if (!path)
            return true;
        struct stat st;
        if (stat(path, &st) != 0) {
            hk_free(path);
            continue;
        }
        if (s->ccdb.loaded && s->ccdb.path && strcmp(s->ccdb.path, path) == 0 &&
            same_mtime(&st.st_mtim, &s->ccdb.mtime)) {
            hk_free(path);
            return true;
        }
        struct ccdb_job *jb = hk_calloc(1, sizeof *jb);
        if (!jb) {
            hk_free(path);
            return true; /* the old database, or none */
        }
        jb->req.data = jb;
        jb->s = s;
        jb->db.path = path;
        jb->db.mtime = st.st_mtim;
        jb->db.loaded = true;
        if (!s->loop || uv_queue_work(s->loop, &jb->req, ccdb_work, ccdb_after)) {
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_CANNOT_QUEUE), path);
            lsp_ccdb_free(&jb->db);
            hk_free(jb);
            return true;
        }
        s->ccdb_job = jb;
        return false;
    }
    if (s->ccdb.loaded)
        ccdb_drop(s, &s->ccdb);
    return true;
}

int lsp_compile_options(struct lsp_server *s, const char *path, cc_options *o,
                        char ***extra_out)
{
    memset(o, 0, sizeof *o);
    *extra_out = NULL;
    lsp_config_refresh_file(s);
    if (!ccdb_refresh(s))
        return HK_ESTATE;
    const struct lsp_config *c = &s->cfg;
    if (c->target_set) {
        o->backend = c->backend;
        o->arch = c->arch;
    } else {
        o->backend = cc_backend_of_path(path); /* no target configured: the .hip rule */
        o->arch = NULL;
    }
    o->compiler = o->backend == CC_DCU ? c->hipcc : c->nvcc;
    o->timeout_ms = c->timeout_ms;
    o->workdir = s->root; /* relative flags in the settings are relative to the root */
    struct hk_strv sv = {0};
    /* In an untrusted folder nothing of the folder's reaches the compiler driver's shell
     * with characters that shell would read (cc_arg_shell_safe): compile_commands.json
     * entries and include paths that have them are left out. */
    bool strict = !s->cfg_trusted;
    for (char **f = c->flags; f && *f; f++)
        hk_strv_push(&sv, *f);
    for (char **f = c->include_paths; f && *f; f++) {
        if (strict && !cc_arg_shell_safe(o->backend, *f)) {
            HK_WARN("compile of %s: include path %s left out (untrusted folder)", path, *f);
            continue;
        }
        hk_strv_push_own(&sv, hk_asprintf("-I%s", *f));
    }
    char *norm = norm_path(NULL, path);
    for (size_t i = 0; norm && i < s->ccdb.n; i++) {
        if (strcmp(s->ccdb.entries[i].file, norm) != 0)
            continue;
        for (char **f = s->ccdb.entries[i].flags; *f; f++) {
            /* "-I" "DIR" come as two words: judge (and skip) them together */
            bool pair = f[1] && (!strcmp(*f, "-I") || !strcmp(*f, "-isystem") ||
                                 !strcmp(*f, "-iquote") || !strcmp(*f, "-include"));
            if (strict && (!cc_arg_shell_safe(o->backend, *f) ||
                           (pair && !cc_arg_shell_safe(o->backend, f[1])))) {
                HK_WARN("compile of %s: flag %s%s%s of %s left out (untrusted folder)", path, *f,
                        pair ? " " : "", pair ? f[1] : "", s->ccdb.path);
                f += pair;
                continue;
            }
            hk_strv_push(&sv, *f);
            if (pair)
                hk_strv_push(&sv, *++f);
        }
        break;
    }
    hk_free(norm);
    *extra_out = hk_strv_done(&sv);
    o->extra = (const char *const *)*extra_out;
    return *extra_out ? HK_OK : HK_ENOMEM;
}

/* ---- the "episodes" and "engines" settings (episodes.c reads them) ---- */

void lsp_ep_config_init(struct lsp_ep_config *c) { memset(c, 0, sizeof *c); }

void lsp_ep_config_free(struct lsp_ep_config *c)
{
    hk_free(c->db);
    hk_free(c->check);
    json_decref(c->engines);
    memset(c, 0, sizeof *c);
}

static const char *const ep_keys[] = {"db", "budget", "minutes", "simulate", "check",
                                      "allowNoFloor"};

bool lsp_ep_config_key(const char *key)
{
    if (!strcmp(key, "episodes") || !strcmp(key, "engines"))
        return true;
    if (strncmp(key, "episodes.", 9) != 0)
        return false;
    for (size_t i = 0; i < HK_ARRAY_LEN(ep_keys); i++)
        if (!strcmp(key + 9, ep_keys[i]))
            return true;
    return false;
}

static json_t *ep_cfg_get(json_t *o, const char *key)
{
    json_t *v = json_object_get(json_object_get(o, "episodes"), key);
    if (v)
        return v;
    char dotted[64];
    snprintf(dotted, sizeof dotted, "episodes.%s", key);
    return json_object_get(o, dotted);
}

/* An engine entry as the contract has it; NULL (and a message) when malformed. */
static json_t *engine_entry(struct lsp_server *s, const char *from, size_t i, json_t *e)
{
    const char *name = json_string_value(json_object_get(e, "name"));
    const char *kind = json_string_value(json_object_get(e, "kind"));
    if (!json_is_object(e) || !name || !*name || strlen(name) > 64 || !kind ||
        (strcmp(kind, "builtin") && strcmp(kind, "openai") && strcmp(kind, "anthropic"))) {
        lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_ENGINE_ENTRY),
                        from, i);
        return NULL;
    }
    json_t *out = json_pack("{s:s, s:s}", "name", name, "kind", kind);
    const char *opt[] = {"endpoint", "model"};
    for (size_t k = 0; out && k < HK_ARRAY_LEN(opt); k++) {
        json_t *v = json_object_get(e, opt[k]);
        if (json_is_string(v))
            json_object_set(out, opt[k], v);
    }
    return out;
}

void lsp_ep_config_apply(struct lsp_server *s, struct lsp_ep_config *c, json_t *o,
                         const char *from)
{
    if (!json_is_object(o))
        return;
    json_t *sect = json_object_get(o, "episodes");
    if (sect && !json_is_object(sect))
        lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_EPISODES_OBJECT), from);
    const char *k;
    json_t *v;
    json_object_foreach(json_is_object(sect) ? sect : NULL, k, v) {
        bool known = false;
        for (size_t i = 0; i < HK_ARRAY_LEN(ep_keys); i++)
            known |= !strcmp(k, ep_keys[i]);
        if (!known)
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_UNKNOWN_EPISODES), from, k);
    }
    if ((v = ep_cfg_get(o, "db"))) {
        if (json_is_string(v) && json_string_length(v) > 0) {
            const char *p = json_string_value(v);
            char *n = p[0] == '/' || !s->root ? hk_strdup(p) : hk_asprintf("%s/%s", s->root, p);
            if (n) {
                hk_free(c->db);
                c->db = n;
            }
        } else {
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_EP_DB), from);
        }
    }
    if ((v = ep_cfg_get(o, "budget"))) {
        if (json_is_integer(v) && json_integer_value(v) >= 1 && json_integer_value(v) <= 100000)
            c->budget = (long)json_integer_value(v);
        else
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_EP_BUDGET),
                            from);
    }
    if ((v = ep_cfg_get(o, "minutes"))) {
        if (json_is_number(v) && json_number_value(v) > 0 && json_number_value(v) <= 1440)
            c->minutes = json_number_value(v);
        else
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_EP_MINUTES),
                            from);
    }
    if ((v = ep_cfg_get(o, "simulate"))) {
        if (json_is_boolean(v))
            c->simulate = json_is_true(v);
        else
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_EP_SIMULATE), from);
    }
    if ((v = ep_cfg_get(o, "allowNoFloor"))) {
        if (json_is_boolean(v))
            c->allow_no_floor = json_is_true(v);
        else
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_EP_NO_FLOOR),
                            from);
    }
    if ((v = ep_cfg_get(o, "check"))) {
        const char *t = json_string_value(v);
        if (t && (!strcmp(t, "full") || !strcmp(t, "quick"))) {
            hk_free(c->check);
            c->check = hk_strdup(t);
        } else {
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_EP_CHECK),
                            from);
        }
    }
    if ((v = json_object_get(o, "engines"))) {
        if (!json_is_array(v) || json_array_size(v) > 32) {
            lsp_log_message(s, 2, hk_tr(HK_MSG_LOG_CFG_ENGINES),
                            from);
            return;
        }
        json_t *list = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            json_t *n = engine_entry(s, from, i, e);
            if (n && list)
                json_array_append_new(list, n);
            else
                json_decref(n);
        }
        json_decref(c->engines);
        c->engines = list;
    }
}
