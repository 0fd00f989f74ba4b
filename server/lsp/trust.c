/* Workspace trust (issue 12): the user's list of trusted folders, kept in their own
 * config directory, and the server's side of it -- whether the workspace root is trusted,
 * the hyperkernel.trustFolder command (the list is written on the libuv thread pool, never
 * on the loop), and the warning that names the .hyperkernel.json keys an untrusted folder
 * had ignored. config.c decides which keys need trust. */
#include "lsp/trust.h"

#include "lsp/base.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "core/strv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRUST_MAX_BYTES ((size_t)1 << 20)
#define TRUST_MAX_FOLDERS 4096

/* ---- the list (blocking; startup, CLI, pool threads) ---- */

int lsp_trust_file(char **out)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    *out = NULL;
    if (xdg && xdg[0] == '/')
        *out = hk_asprintf("%s/hyperkernel/trusted.json", xdg);
    else if (home && home[0] == '/')
        *out = hk_asprintf("%s/.config/hyperkernel/trusted.json", home);
    else
        return HK_ENOENT;
    return *out ? HK_OK : HK_ENOMEM;
}

void lsp_trust_free(char **folders) { hk_strv_free(folders); }

static int push(char ***v, size_t *n, const char *s)
{
    char **nv = hk_realloc(*v, (*n + 2) * sizeof *nv);
    if (!nv)
        return HK_ENOMEM;
    *v = nv;
    if (!(nv[*n] = hk_strdup(s)))
        return HK_ENOMEM;
    nv[++*n] = NULL;
    return HK_OK;
}

/* Parses the list from an open descriptor. */
static int read_fd(int fd, char ***out)
{
    int rc = HK_OK;
    struct hk_buf b;
    hk_buf_init(&b, TRUST_MAX_BYTES);
    json_t *j = NULL;
    char **v = hk_calloc(1, sizeof *v);
    size_t n = 0;
    if (!v)
        return HK_ENOMEM;
    char chunk[8192];
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = HK_EIO;
            goto out;
        }
        if (got == 0)
            break;
        if ((rc = hk_buf_append(&b, chunk, (size_t)got)))
            goto out;
    }
    if (b.len == 0) /* an empty file is an empty list */
        goto out;
    json_error_t err;
    j = json_loadb(b.data, b.len, 0, &err);
    if (!json_is_array(j) || json_array_size(j) > TRUST_MAX_FOLDERS) {
        rc = HK_EPARSE;
        goto out;
    }
    size_t i;
    json_t *e;
    json_array_foreach(j, i, e) {
        const char *p = json_string_value(e);
        if (!p || p[0] != '/' || strlen(p) != json_string_length(e)) {
            rc = HK_EPARSE;
            goto out;
        }
        if ((rc = push(&v, &n, p)))
            goto out;
    }
out:
    json_decref(j);
    hk_buf_free(&b);
    if (rc) {
        hk_strv_free(v);
        v = NULL;
    }
    *out = v;
    return rc;
}

int lsp_trust_read(const char *file, char ***out)
{
    *out = NULL;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            return HK_EIO;
        *out = hk_calloc(1, sizeof **out);
        return *out ? HK_OK : HK_ENOMEM;
    }
    int rc = read_fd(fd, out);
    close(fd);
    return rc;
}

bool lsp_trust_covers(char *const *folders, const char *path)
{
    if (!path || path[0] != '/')
        return false;
    for (char *const *f = folders; f && *f; f++) {
        size_t n = strlen(*f);
        while (n > 1 && (*f)[n - 1] == '/') /* "/a/b/" trusts /a/b too */
            n--;
        if (strncmp(path, *f, n) != 0)
            continue;
        if (path[n] == '\0' || path[n] == '/' || (n == 1 && (*f)[0] == '/'))
            return true;
    }
    return false;
}

/* mkdir -p for the directory part of file (mode 0700: it is the user's config). */
static int make_parent(const char *file)
{
    char *d = hk_strdup(file);
    if (!d)
        return HK_ENOMEM;
    int rc = HK_OK;
    for (char *p = d + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(d, 0700) != 0 && errno != EEXIST) {
            rc = HK_EIO;
            break;
        }
        *p = '/';
    }
    hk_free(d);
    return rc;
}

/* Writes the list to file through a temporary file in the same directory. */
static int write_atomic(const char *file, char **v)
{
    int rc = HK_ENOMEM;
    json_t *j = json_array();
    char *tmp = hk_asprintf("%s.tmp.%d", file, (int)getpid());
    int fd = -1;
    if (!j || !tmp)
        goto out;
    for (char **p = v; p && *p; p++)
        if (json_array_append_new(j, json_string(*p)))
            goto out;
    rc = HK_EIO;
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        goto out;
    if (json_dumpfd(j, fd, JSON_INDENT(2)) != 0 || write(fd, "\n", 1) != 1 || fsync(fd) != 0)
        goto out;
    if (close(fd) != 0) {
        fd = -1;
        goto out;
    }
    fd = -1;
    if (rename(tmp, file) != 0)
        goto out;
    rc = HK_OK;
out:
    if (fd >= 0)
        close(fd);
    if (rc && tmp)
        unlink(tmp);
    hk_free(tmp);
    json_decref(j);
    return rc;
}

/* The folder as it is stored: realpath when it exists, else (removal only) the absolute
 * path with trailing slashes dropped. */
static int canonical(const char *folder, bool must_exist, char **out)
{
    *out = NULL;
    if (!folder || !*folder)
        return HK_EINVAL;
    char buf[PATH_MAX];
    if (realpath(folder, buf)) {
        struct stat st;
        if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
            return HK_ENOENT;
        *out = hk_strdup(buf);
    } else if (must_exist || folder[0] != '/') {
        return HK_ENOENT;
    } else {
        *out = hk_strdup(folder);
        size_t n = *out ? strlen(*out) : 0;
        while (n > 1 && (*out)[n - 1] == '/')
            (*out)[--n] = '\0';
    }
    return *out ? HK_OK : HK_ENOMEM;
}

int lsp_trust_update(const char *file, const char *folder, bool add, char **canon,
                     bool *changed)
{
    int rc;
    char *c = NULL, *lock = NULL;
    char **v = NULL, **nv = NULL;
    size_t nn = 0;
    int lfd = -1;
    bool did = false;
    if ((rc = canonical(folder, add, &c)))
        goto out;
    if ((rc = make_parent(file)))
        goto out;
    if (!(lock = hk_asprintf("%s.lock", file))) {
        rc = HK_ENOMEM;
        goto out;
    }
    lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
        rc = HK_EIO;
        goto out;
    }
    if ((rc = lsp_trust_read(file, &v)))
        goto out;
    if (!(nv = hk_calloc(1, sizeof *nv))) {
        rc = HK_ENOMEM;
        goto out;
    }
    bool present = false;
    for (char **p = v; *p; p++) {
        if (!strcmp(*p, c)) {
            present = true;
            if (!add)
                continue; /* dropped */
        }
        if ((rc = push(&nv, &nn, *p)))
            goto out;
    }
    if (add && !present && (rc = push(&nv, &nn, c)))
        goto out;
    did = add ? !present : present;
    if (did && (rc = write_atomic(file, nv)))
        goto out;
out:
    if (lfd >= 0)
        close(lfd); /* releases the lock */
    if (changed)
        *changed = rc == HK_OK && did;
    if (canon && rc == HK_OK) {
        *canon = c;
        c = NULL;
    } else if (canon) {
        *canon = NULL;
    }
    hk_free(c);
    hk_free(lock);
    hk_strv_free(v);
    hk_strv_free(nv);
    return rc;
}


/* ---- the server's side (loop thread unless said otherwise) ---- */

/* They name a program to run (the compilers; and any compiler flag, since -ccbin,
 * -Xcompiler, --linker-options, -Xlinker, plugins and response files run or load
 * programs), send the code somewhere (engines and their endpoints), or replace the GPU
 * with the simulator. A folder cannot vouch for itself. The target, timeouts, the
 * database and the rest run nothing and apply everywhere; so do include paths and
 * compile_commands.json's -I/-D/-U/-std/-include/--expt-* -- except those with characters
 * the compiler driver's shell would read (cc_arg_shell_safe; config.c leaves them out). */
const struct lsp_trust_key lsp_trust_keys[] = {
    {"compile", "nvcc", HK_MSG_TRUST_WHY_COMPILER},
    {"compile", "hipcc", HK_MSG_TRUST_WHY_COMPILER},
    {"compile", "flags", HK_MSG_TRUST_WHY_FLAGS},
    {"episodes", "simulate", HK_MSG_TRUST_WHY_SIMULATE},
    {NULL, "engines", HK_MSG_TRUST_WHY_ENGINES},
    {NULL, "isTrusted", HK_MSG_TRUST_WHY_IS_TRUSTED},
};
const size_t lsp_trust_n_keys = HK_ARRAY_LEN(lsp_trust_keys);

static const char *key_why(const char *dotted)
{
    if (!strcmp(dotted, "compile.includePaths")) /* only when an entry is unsafe (config.c) */
        return hk_tr(HK_MSG_TRUST_WHY_INCLUDE);
    for (size_t i = 0; i < lsp_trust_n_keys; i++) {
        const struct lsp_trust_key *k = &lsp_trust_keys[i];
        size_t n = k->section ? strlen(k->section) : 0;
        if (k->section ? !strncmp(dotted, k->section, n) && dotted[n] == '.' &&
                             !strcmp(dotted + n + 1, k->key)
                       : !strcmp(dotted, k->key))
            return hk_tr(k->why);
    }
    return hk_tr(HK_MSG_TRUST_WHY_DEFAULT);
}

void lsp_trust_load(struct lsp_server *s)
{
    char *file = NULL;
    char **v = NULL;
    int rc = lsp_trust_file(&file);
    if (rc == HK_OK)
        rc = lsp_trust_read(file, &v);
    if (rc) {
        HK_WARN("trust: cannot read the trusted folders %s: %s; no folder is trusted",
                file ? file : "($XDG_CONFIG_HOME and $HOME unset)", hk_strerror(rc));
    } else {
        size_t n = 0;
        while (v[n])
            n++;
        HK_INFO("trust: %s lists %zu folder(s)", file, n);
    }
    hk_strv_free(s->trusted_folders);
    s->trusted_folders = v;
    hk_free(file);
}

bool lsp_trusted(const struct lsp_server *s)
{
    if (s->client_trusted)
        return true;
    return lsp_trust_covers(s->trusted_folders, s->root_canon ? s->root_canon : s->root);
}

/* The 0-based line of a key of .hyperkernel.json ("compile.nvcc": the dotted form, else
 * the last component after its section), or 0 when the text does not show it. */
static unsigned key_line(const char *text, const char *key)
{
    if (!text)
        return 0;
    char q[128];
    snprintf(q, sizeof q, "\"%s\"", key);
    const char *at = strstr(text, q);
    const char *dot = strchr(key, '.');
    if (!at && dot) {
        char sect[64];
        snprintf(sect, sizeof sect, "\"%.*s\"", (int)(dot - key), key);
        const char *from = strstr(text, sect);
        snprintf(q, sizeof q, "\"%s\"", dot + 1);
        at = from ? strstr(from, q) : NULL;
    }
    unsigned line = 0;
    for (const char *p = text; at && p < at; p++)
        line += *p == '\n';
    return line;
}

/* Publishes the warnings on .hyperkernel.json itself: one per ignored key (an empty set
 * once nothing is ignored). */
static void publish_file_diags(struct lsp_server *s)
{
    char *path = s->root ? hk_asprintf("%s/%s", s->root, LSP_CONFIG_FILE) : NULL;
    char *uri = path ? lsp_path_to_uri(path) : NULL;
    json_t *diags = json_array();
    if (!uri || !diags)
        goto out;
    const char *keys = s->untrusted_keys ? s->untrusted_keys : "";
    while (*keys) {
        size_t n = strcspn(keys, ",");
        char key[96];
        snprintf(key, sizeof key, "%.*s", (int)(n < 95 ? n : 95), keys);
        unsigned line = key_line(s->cfg_file_text, key);
        char *msg = hk_trf(HK_MSG_TRUST_KEY_IGNORED,
                                key, key_why(key), s->root);
        json_t *d = msg ? json_pack("{s:{s:{s:i, s:i}, s:{s:i, s:i}}, s:i, s:s, s:s, s:s}",
                                    "range", "start", "line", (int)line, "character", 0,
                                    "end", "line", (int)line + 1, "character", 0,
                                    "severity", 2, "source", "hkls", "code",
                                    "untrusted-setting", "message", msg)
                        : NULL;
        hk_free(msg);
        if (d)
            json_array_append_new(diags, d);
        keys += n;
        if (*keys == ',')
            keys++;
    }
    rpc_notify(s->rpc, "textDocument/publishDiagnostics",
               json_pack("{s:s, s:o}", "uri", uri, "diagnostics", diags));
    diags = NULL;
out:
    json_decref(diags);
    hk_free(uri);
    hk_free(path);
}

void lsp_trust_set_ignored(struct lsp_server *s, const char *keys)
{
    const char *old = s->untrusted_keys ? s->untrusted_keys : "";
    if (!strcmp(old, keys))
        return;
    char *n = hk_strdup(keys);
    if (!n)
        return;
    bool had = old[0] != '\0';
    hk_free(s->untrusted_keys);
    s->untrusted_keys = n;
    s->trust_report_due = had || keys[0];
    lsp_trust_report(s);
}

void lsp_trust_report(struct lsp_server *s)
{
    if (!s->trust_report_due || !s->init_replied || s->state != LSP_RUNNING)
        return;
    s->trust_report_due = false;
    const char *keys = s->untrusted_keys ? s->untrusted_keys : "";
    if (keys[0]) {
        /* Readable list: "a, b" instead of "a,b". */
        struct hk_buf b;
        hk_buf_init(&b, 4096);
        for (const char *p = keys; *p; p++) {
            if (*p == ',')
                hk_buf_appends(&b, ", ");
            else
                hk_buf_append(&b, p, 1);
        }
        lsp_show_message(s, 2, hk_tr(HK_MSG_SHOW_UNTRUSTED), s->root, LSP_CONFIG_FILE,
                         b.data ? b.data : keys, s->root);
        hk_buf_free(&b);
    } else {
        HK_INFO("trust: every setting of %s/%s applies now", s->root ? s->root : "",
                LSP_CONFIG_FILE);
    }
    publish_file_diags(s);
}

/* ---- hyperkernel.trustFolder / hyperkernel.untrustFolder ---- */

struct trust_job {
    uv_work_t req;
    struct lsp_server *s;
    rpc_call *call;
    bool add;
    char *folder;   /* as given (or the root) */
    char *file;     /* the trust list */
    char *canon;    /* the folder as stored */
    char **list;    /* the list after the change */
    bool changed;
    int rc;
};

/* Pool thread: the read-modify-write of the user's list. */
static void trust_work(uv_work_t *req)
{
    hk_thread_background();
    struct trust_job *j = req->data;
    j->rc = lsp_trust_file(&j->file);
    if (j->rc == HK_OK)
        j->rc = lsp_trust_update(j->file, j->folder, j->add, &j->canon, &j->changed);
    if (j->rc == HK_OK)
        j->rc = lsp_trust_read(j->file, &j->list);
}

static void trust_after(uv_work_t *req, int status)
{
    struct trust_job *j = req->data;
    struct lsp_server *s = j->s;
    s->trust_jobs--;
    if (status == UV_ECANCELED)
        j->rc = HK_ECANCELED;
    if (j->rc) {
        char *m = hk_asprintf(hk_tr(j->add ? HK_MSG_LSPX_TRUST_FAILED : HK_MSG_LSPX_UNTRUST_FAILED),
                              j->folder, hk_strerror_tr(j->rc),
                              j->file ? j->file : hk_tr(HK_MSG_LSPX_UNKNOWN));
        HK_WARN("trust: %s", m ? m : "failed");
        if (j->rc == HK_ENOENT || j->rc == HK_EINVAL) /* no such folder */
            rpc_call_error_code(j->call, RPC_INVALID_PARAMS, m);
        else if (j->rc == HK_ENOMEM)
            rpc_call_error(j->call, j->rc, m);
        else /* the list cannot be read, is broken, or cannot be written */
            rpc_call_error_code(j->call, RPC_REQUEST_FAILED, m);
        hk_free(m);
        goto out;
    }
    hk_strv_free(s->trusted_folders);
    s->trusted_folders = j->list;
    j->list = NULL;
    HK_INFO("trust: %s %s in %s", j->add ? "trusted" : "no longer trusted", j->canon, j->file);
    bool was = s->cfg_trusted;
    if (s->state == LSP_RUNNING && !s->stopped) {
        lsp_emit(s, LSP_EV_TRUST_CHANGED, NULL, NULL); /* the folder's settings, now
                                                        * with or without trust */
        if (!was && s->cfg_trusted)
            lsp_emit(s, LSP_EV_RECHECK_ALL, NULL, NULL);
        lsp_show_message(s, 3,
                         hk_tr(!j->add ? HK_MSG_SHOW_UNTRUSTING
                                       : lsp_trusted(s) ? HK_MSG_SHOW_TRUSTED_FULL
                                                        : HK_MSG_SHOW_TRUSTED),
                         j->canon);
    }
    rpc_call_reply(j->call, json_pack("{s:s, s:s, s:b, s:b}", "folder", j->canon, "file",
                                      j->file, "changed", j->changed, "workspaceTrusted",
                                      lsp_trusted(s)));
out:
    hk_free(j->folder);
    hk_free(j->file);
    hk_free(j->canon);
    hk_strv_free(j->list);
    hk_free(j);
}

void lsp_trust_command(struct lsp_server *s, rpc_call *call, json_t *params, bool add)
{
    json_t *a = json_array_get(json_object_get(params, "arguments"), 0);
    const char *given = json_is_string(a) ? json_string_value(a)
                                          : json_string_value(json_object_get(a, "folder"));
    if (!given && json_is_object(a))
        given = json_string_value(json_object_get(a, "uri"));
    if (a && !json_is_null(a) && !given) {
        rpc_call_error(call, HK_EINVAL,
                       hk_tr(HK_MSG_LSP_ERR_ARGS_TRUST));
        return;
    }
    if (!given && !s->root) {
        rpc_call_error(call, HK_EINVAL, hk_tr(HK_MSG_LSP_ERR_NO_WORKSPACE));
        return;
    }
    struct trust_job *j = hk_calloc(1, sizeof *j);
    if (!j) {
        rpc_call_error(call, HK_ENOMEM, NULL);
        return;
    }
    j->s = s;
    j->call = call;
    j->add = add;
    j->req.data = j;
    if (!given)
        j->folder = hk_strdup(s->root);
    else if (!strncmp(given, "file://", 7))
        j->folder = lsp_uri_to_path(given);
    else
        j->folder = hk_strdup(given);
    if (!j->folder || j->folder[0] != '/') {
        rpc_call_error(call, j->folder ? HK_EINVAL : HK_ENOMEM,
                       j->folder ? hk_tr(HK_MSG_LSP_ERR_FOLDER_ABSOLUTE) : NULL);
        hk_free(j->folder);
        hk_free(j);
        return;
    }
    rpc_call_defer(call);
    if (uv_queue_work(s->loop, &j->req, trust_work, trust_after)) {
        rpc_call_error(call, HK_EIO, hk_tr(HK_MSG_LSP_ERR_QUEUE_TRUST));
        hk_free(j->folder);
        hk_free(j);
        return;
    }
    s->trust_jobs++;
}
