/* Spec inference (docs/bench-spec.md "Optimize without a spec"): the harness-form spec of
 * a kernel from its signature, its index math (which elements each thread touches, the
 * bounds checks, grid-stride loops, a block size the math hard-codes) and the host code
 * at its launch site (the launch's grid and arguments, cudaMalloc sizes, vector sizes,
 * template arguments). Every guess is recorded with where it came from; a guess that
 * cannot be checked becomes a doubt, and a caller runs nothing on a spec with doubts.
 * This file chooses among the skeletons (one per grid mode) and finds the files; the
 * launcher's text is read in infer_text.c, the index math in infer_index.c, and one
 * skeleton is put together in infer_build.c (shared declarations: spec/infer_int.h). */
#include "spec/infer.h"
#include "spec/infer_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "model/kclass.h"
#include "model/kmodel.h"
#include "spec/ccdb.h"
#include "spec/expr.h"
#include "spec/spec.h"

/* ---- checking and choosing ---- */

/* Every size set: each grid dimension launches at least the blocks its bounds need. */
static bool sk_covers(const spec *sp, const sk_cover *c, char *why, size_t whylen)
{
    if (c->grid_stride)
        return true;
    for (size_t k = 0; c->need_xy && k < sp->n_sizes; k++) {
        expr *e = NULL;
        expr_value need, gx, gy;
        expr_var *vars = hk_calloc(sp->n_size_names + 4, sizeof *vars);
        size_t nv = vars ? spec_size_vars(sp, k, NULL, 132, vars) : 0;
        bool bad = !vars || expr_parse(c->need_xy, &e, NULL, 0) != HK_OK ||
                   expr_eval(e, vars, nv, &need, NULL, 0) != HK_OK ||
                   spec_eval(sp, sp->grid[0], k, 132, &gx, NULL, 0) != HK_OK ||
                   spec_eval(sp, sp->grid[1], k, 132, &gy, NULL, 0) != HK_OK;
        hk_free(vars);
        expr_free(e);
        if (bad) {
            snprintf(why, whylen, "%s", hk_tr(HK_MSG_INFX_NO_EVAL_GRID_XY));
            return false;
        }
        if (gx.i * gy.i < need.i) {
            snprintf(why, whylen, hk_tr(HK_MSG_INFX_GRID_XY_SHORT), gx.i, gy.i, k, need.i);
            return false;
        }
    }
    for (size_t k = 0; k < sp->n_sizes; k++)
        for (int d = 0; d < 3; d++) {
            if (!c->need[d])
                continue;
            expr *e = NULL;
            expr_value need, got;
            expr_var *vars = hk_calloc(sp->n_size_names + 4, sizeof *vars);
            size_t nv = vars ? spec_size_vars(sp, k, NULL, 132, vars) : 0;
            bool bad = !vars || expr_parse(c->need[d], &e, NULL, 0) != HK_OK ||
                       expr_eval(e, vars, nv, &need, NULL, 0) != HK_OK ||
                       spec_eval(sp, sp->grid[d], k, 132, &got, NULL, 0) != HK_OK;
            hk_free(vars);
            if (bad) {
                expr_free(e);
                snprintf(why, whylen, hk_tr(HK_MSG_INFX_NO_EVAL_GRID), "xyz"[d]);
                return false;
            }
            expr_free(e);
            if (got.i < need.i) {
                snprintf(why, whylen, hk_tr(HK_MSG_INFX_GRID_SHORT), "xyz"[d], got.i, k, need.i);
                return false;
            }
        }
    return true;
}

static char **sk_steal_list(char **items, size_t *n, size_t *out_n)
{
    *out_n = 0;
    if (!*n)
        return NULL;
    char **v = hk_calloc(*n, sizeof *v);
    if (!v)
        return NULL;
    memcpy(v, items, *n * sizeof *v);
    *out_n = *n;
    *n = 0;
    return v;
}

void spec_inference_free(spec_inference *inf)
{
    if (!inf)
        return;
    json_decref(inf->spec);
    for (size_t i = 0; i < inf->n_notes; i++)
        hk_free(inf->notes[i]);
    for (size_t i = 0; i < inf->n_doubts; i++)
        hk_free(inf->doubts[i]);
    hk_free(inf->notes);
    hk_free(inf->doubts);
    memset(inf, 0, sizeof *inf);
}

/* A launch site found in another file than the kernel's (all borrowed). */
typedef struct {
    const an_model *m;
    const char *text;
    size_t len;
    const char *label; /* its path, relative to the kernel's directory when under it */
} infer_site;

/* The inference on an analysed text: tries the launch site's grid, then the grid the
 * bounds checks imply, then a flat one; the first that validates (at spec_path, or as
 * text when NULL) and covers every element the bounds name wins. */
/* target (a real path) as the spec at spec_path names it: relative to the spec's folder
 * when the two share a folder below the root and target is at most 3 levels up (the spec
 * moves with its project), else absolute. New string. */
static char *path_from_spec(const char *spec_path, const char *target)
{
    char base[PATH_MAX] = "";
    const char *slash = spec_path ? strrchr(spec_path, '/') : NULL;
    char *d = !spec_path ? NULL : slash ? hk_strndup(spec_path, (size_t)(slash - spec_path + (slash == spec_path)))
                                       : hk_strdup(".");
    if (spec_path && !d)
        return NULL;
    bool have = d && realpath(d, base);
    hk_free(d);
    if (!have)
        return hk_strdup(target);
    /* the common folder prefix, by whole components */
    size_t common = 0, i = 0;
    for (;; i++) {
        char a = base[i], b = target[i];
        if ((a == '/' || !a) && (b == '/' || !b))
            common = i;
        if (!a || !b || a != b)
            break;
    }
    if (!base[common] && !target[common])
        return hk_strdup(".");
    if (common == 0)
        return hk_strdup(target); /* only the root in common */
    size_t ups = 0;
    for (const char *p = base + common; *p; p++)
        ups += *p == '/';
    if (ups > 3)
        return hk_strdup(target);
    struct hk_buf b;
    hk_buf_init(&b, PATH_MAX);
    int rc = HK_OK;
    for (size_t u = 0; u < ups && !rc; u++)
        rc = hk_buf_appends(&b, u ? "/.." : "..");
    const char *rest = target + common + (target[common] == '/');
    if (!rc && *rest)
        rc = hk_buf_printf(&b, "%s%s", ups ? "/" : "", rest);
    if (rc) {
        hk_buf_free(&b);
        return NULL;
    }
    return hk_buf_steal(&b);
}

/* The spec's "include_dirs" from the project's compile_commands.json (incs, found in
 * db), with a note saying so. HK_OK or HK_ENOMEM. */
static int add_include_dirs(json_t *root, skel *k, const char *const *incs, const char *db,
                            const char *spec_path)
{
    json_t *a = json_array();
    struct hk_buf list;
    hk_buf_init(&list, 4096);
    int rc = a ? HK_OK : HK_ENOMEM;
    for (size_t i = 0; incs[i] && !rc; i++) {
        char *p = path_from_spec(spec_path, incs[i]);
        if (!p || json_array_append_new(a, json_string(p)) != 0 ||
            hk_buf_printf(&list, "%s%s", i ? ", " : "", p))
            rc = HK_ENOMEM;
        hk_free(p);
    }
    if (!rc && json_object_set_new(root, "include_dirs", a) != 0)
        rc = HK_ENOMEM;
    else if (rc)
        json_decref(a);
    if (!rc)
        sk_note(k, HK_MSG_INF_INCLUDE_DIRS, db, list.data ? list.data : "");
    hk_buf_free(&list);
    return rc;
}

static int infer_model(const an_model *m, long kernel, const char *text, size_t len, const char *source,
                       const char *file_label, const infer_site *ext, const char *spec_path,
                       const char *const *incs, const char *incs_db, spec_inference *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (err && errlen)
        err[0] = '\0';
    if (!m || kernel < 0 || (size_t)kernel >= m->n_funcs || m->funcs[kernel].kind != AN_KERNEL)
        return HK_EINVAL;
    const an_function *f = &m->funcs[kernel];
    bool writable = false;
    for (size_t i = 0; i < f->n_params; i++)
        writable |= f->params[i].pointer_depth > 0 && !f->params[i].is_const;
    if (f->n_params == 0 || !writable) {
        if (err)
            snprintf(err, errlen, hk_tr(HK_MSG_INFX_NOTHING_TO_COMPARE), f->name,
                     hk_tr(f->n_params == 0 ? HK_MSG_INFX_FRAG_NO_PARAMS : HK_MSG_INFX_FRAG_NO_WRITABLE));
        return HK_EUNSUPPORTED;
    }
    if (f->n_params > HK_MAX_ARGS || !sk_is_kernel_name(f->name)) {
        if (err)
            snprintf(err, errlen, hk_tr(HK_MSG_INFX_TOO_MANY_PARAMS), f->name, f->n_params, HK_MAX_ARGS);
        return HK_EUNSUPPORTED;
    }
    char last_why[512] = "";
    /* The model follows index math through temporaries; without one (a parse it cannot
     * read) the textual scan alone decides. */
    km_kernel *km = NULL;
    if (km_build(text, len, f->name, &km, NULL, 0) != HK_OK)
        km = NULL;
    int rc = HK_EUNSUPPORTED;
    for (int mode = GRID_SITE; mode <= GRID_FLAT; mode++) {
        skel k = { .m = m, .text = text, .len = len, .file = file_label, .km = km };
        if (ext) {
            k.site_m = ext->m;
            k.site_text = ext->text;
            k.site_len = ext->len;
            k.site_file = ext->label;
        }
        sk_cover cover = { 0 };
        json_t *root = NULL;
        rc = sk_build(m, kernel, &k, source, mode, &cover, &root);
        if (rc != HK_OK) {
            sk_cover_free(&cover);
            sk_free(&k);
            goto out;
        }
        if (incs && incs[0] && add_include_dirs(root, &k, incs, incs_db, spec_path) != HK_OK) {
            json_decref(root);
            sk_cover_free(&cover);
            sk_free(&k);
            rc = HK_ENOMEM;
            goto out;
        }
        json_t *inferred = json_array();
        for (size_t i = 0; inferred && i < k.n_notes; i++)
            json_array_append_new(inferred, json_string(k.notes[i]));
        if (!inferred || json_object_set_new(root, "inferred", inferred) != 0) {
            json_decref(root);
            sk_cover_free(&cover);
            sk_free(&k);
            rc = HK_ENOMEM;
            goto out;
        }
        char *dump = json_dumps(root, 0);
        spec_diags d = { 0 };
        spec *sp = NULL;
        rc = dump ? spec_parse(dump, strlen(dump), spec_path, &sp, &d) : HK_ENOMEM;
        hk_free(dump);
        bool covers = rc == HK_OK && sk_covers(sp, &cover, last_why, sizeof last_why);
        if (rc != HK_OK && d.n)
            snprintf(last_why, sizeof last_why, "%s: %s", d.items[0].path, d.items[0].message);
        spec_free(sp);
        spec_diags_free(&d);
        sk_cover_free(&cover);
        if (rc == HK_ENOMEM) {
            json_decref(root);
            sk_free(&k);
            goto out;
        }
        if (rc == HK_OK && (covers || mode == GRID_FLAT)) {
            if (!covers)
                sk_doubt_text(&k, last_why);
            if (k.nomem) {
                json_decref(root);
                sk_free(&k);
                rc = HK_ENOMEM;
                goto out;
            }
            out->spec = root;
            out->notes = sk_steal_list(k.notes, &k.n_notes, &out->n_notes);
            out->doubts = sk_steal_list(k.doubts, &k.n_doubts, &out->n_doubts);
            sk_free(&k);
            rc = HK_OK;
            goto out;
        }
        /* keep the reasons of the last attempt for the refusal */
        if (mode == GRID_FLAT && err) {
            size_t at = (size_t)snprintf(err, errlen, hk_tr(HK_MSG_INF_NO_SPEC_VALIDATES), f->name, last_why);
            for (size_t i = 0; i < k.n_doubts && at < errlen; i++)
                at += (size_t)snprintf(err + at, errlen - at, "; %s", k.doubts[i]);
            if (at >= errlen)
                hk_utf8_trim(err); /* cut short: whole characters only */
        }
        json_decref(root);
        sk_free(&k);
        rc = HK_EUNSUPPORTED;
    }
out:
    km_free(km);
    return rc;
}

int spec_skeleton(const an_model *m, long kernel, const char *text, size_t len, const char *source,
                  json_t **out)
{
    *out = NULL;
    spec_inference inf;
    int rc = infer_model(m, kernel, text, len, source, source, NULL, NULL, NULL, NULL, &inf, NULL, 0);
    if (rc == HK_OK) {
        *out = json_incref(inf.spec);
        spec_inference_free(&inf);
    }
    return rc;
}

/* ---- files ---- */

/* "source" as the spec at spec_path writes it: relative to its directory when the source
 * lies under it, else absolute. New string. */
static char *source_for(const char *file, const char *spec_path)
{
    char src_real[PATH_MAX], dir_real[PATH_MAX];
    if (!realpath(file, src_real))
        return hk_strdup(file);
    char *dir = hk_strdup(spec_path ? spec_path : "./x");
    if (!dir)
        return NULL;
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    const char *d = slash ? (dir[0] ? dir : "/") : ".";
    char *res = NULL;
    if (realpath(d, dir_real)) {
        size_t dl = strlen(dir_real);
        if (strncmp(src_real, dir_real, dl) == 0 && src_real[dl] == '/')
            res = hk_strdup(src_real + dl + 1);
    }
    if (!res)
        res = hk_strdup(src_real);
    hk_free(dir);
    return res;
}

/* ---- a launch site in another file of the project ---- */

/* A kernel header's launch often lives in a sibling .cu. The search reads the kernel's
 * directory tree, then, inside a project (a folder up to SIB_ROOT_UP levels above holds
 * .git, compile_commands.json, CMakeLists.txt, Makefile, setup.py or pyproject.toml), its
 * parent's and grandparent's, never above that project's root; outside a project (a loose
 * file in /tmp) only its own folder. In name order, at most SIB_MAX_FILES files of the
 * extensions below, SIB_MAX_DEPTH deep, the first 512 entries of a folder; the first file
 * with a launch of the kernel that passes as many arguments as it takes wins. Hidden
 * folders are skipped. */
#define SIB_MAX_FILES 2000

#define SIB_MAX_DEPTH 6

#define SIB_LEVELS 3

#define SIB_ROOT_UP 8

typedef struct {
    const char *kernel;
    size_t n_params;
    const char *self;  /* the kernel's own file (real path): not searched again */
    const char *skip;  /* a folder already searched (real path), or NULL */
    size_t files;
    char *path;        /* found: real path, text and model (owned) */
    char *text;
    size_t len;
    an_model *m;
} sib_search;

static bool sib_source_name(const char *name)
{
    static const char *const exts[] = { ".cu", ".cuh", ".hip", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp" };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < HK_ARRAY_LEN(exts); i++)
        if (!strcmp(dot, exts[i]))
            return true;
    return false;
}

/* The file at path, when it holds a launch of the kernel: kept in s. */
static void sib_try_file(sib_search *s, const char *path)
{
    size_t len = 0;
    char *text = NULL;
    (void)hk_read_file(path, INFER_MAX_SOURCE, &text, &len); /* NULL: skipped */
    an_model *m = NULL;
    /* cheap filter before a parse: the name and a launch form */
    if (!text || !strstr(text, s->kernel) ||
        (!strstr(text, "<<<") && !strstr(text, "LaunchKernel")) || an_analyze(text, len, &m) != HK_OK ||
        !sk_find_site(m, text, len, s->kernel, s->n_params)) {
        an_model_free(m);
        hk_free(text);
        return;
    }
    s->path = hk_strdup(path);
    s->text = text;
    s->len = len;
    s->m = m;
}

static int sib_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sib_walk(sib_search *s, const char *dir, int depth)
{
    if (s->m || depth > SIB_MAX_DEPTH || (s->skip && !strcmp(dir, s->skip)))
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[512];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < HK_ARRAY_LEN(names))
        if (e->d_name[0] != '.' && (names[n] = hk_strdup(e->d_name)) != NULL)
            n++;
    closedir(d);
    qsort(names, n, sizeof *names, sib_name_cmp);
    for (size_t i = 0; i < n; i++) {
        char *p = hk_asprintf("%s/%s", dir, names[i]);
        struct stat st;
        if (p && !s->m && s->files < SIB_MAX_FILES && stat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                sib_walk(s, p, depth + 1);
            } else if (S_ISREG(st.st_mode) && sib_source_name(names[i]) && strcmp(p, s->self) != 0 &&
                       (size_t)st.st_size <= INFER_MAX_SOURCE) {
                s->files++;
                sib_try_file(s, p);
            }
        }
        hk_free(p);
        hk_free(names[i]);
    }
}

/* Searches the project around the kernel's file (real path self) for a launch site. */
static void sib_find(sib_search *s, const char *self)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", self);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    /* how far up the project's root is; none: this folder alone */
    static const char *const markers[] = { ".git", "compile_commands.json", "CMakeLists.txt", "Makefile",
                                           "setup.py", "pyproject.toml" };
    int root_up = -1;
    char up[PATH_MAX];
    snprintf(up, sizeof up, "%s", dir);
    for (int l = 0; l <= SIB_ROOT_UP && root_up < 0 && up[0]; l++) {
        for (size_t i = 0; i < HK_ARRAY_LEN(markers) && root_up < 0; i++) {
            char mk[PATH_MAX + 32];
            snprintf(mk, sizeof mk, "%s/%s", up, markers[i]);
            if (access(mk, F_OK) == 0)
                root_up = l;
        }
        char *sl = strrchr(up, '/');
        if (!sl || sl == up)
            break;
        *sl = '\0';
    }
    int levels = root_up < 0 ? 1 : root_up + 1 < SIB_LEVELS ? root_up + 1 : SIB_LEVELS;
    char prev[PATH_MAX] = "";
    for (int level = 0; level < levels && dir[0] && !s->m; level++) {
        s->skip = prev[0] ? prev : NULL;
        sib_walk(s, dir, 0);
        if (!(slash = strrchr(dir, '/')) || slash == dir)
            break;
        snprintf(prev, sizeof prev, "%s", dir);
        *slash = '\0';
    }
}

static int infer_once(const char *path, const char *kernel, const char *spec_path, spec_inference *out,
                      char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t len = 0;
    char *text = NULL, *src = NULL, *label = NULL, *incs_db = NULL;
    char **incs = NULL;
    an_model *m = NULL;
    sib_search sib = { 0 };
    /* grown as it is read (a 16 MiB buffer per file read cost the sibling search dearly
     * under ASan: tens of thousands of mmap/madvise calls in test_spec_infer) */
    int rc = hk_read_file(path, INFER_MAX_SOURCE, &text, &len);
    if (rc) {
        if (err)
            snprintf(err, errlen, "cannot read %s: %s", path,
                     rc == HK_ETOOBIG ? "larger than 16 MiB" : hk_strerror_tr(rc));
        goto out;
    }
    if ((rc = an_analyze(text, len, &m)) != HK_OK) {
        if (err)
            snprintf(err, errlen, "cannot analyse %s: %s", path, hk_strerror_tr(rc));
        goto out;
    }
    long k = an_model_find_kernel(m, kernel);
    if (k < 0) {
        rc = HK_ENOENT;
        if (err)
            snprintf(err, errlen, hk_tr(HK_MSG_INFX_NO_KERNEL), kernel, path);
        goto out;
    }
    if (!(src = source_for(path, spec_path))) {
        rc = HK_ENOMEM;
        goto out;
    }
    infer_site ext = { 0 };
    char self[PATH_MAX];
    const an_function *f = &m->funcs[k];
    if (!sk_find_site(m, text, len, f->name, f->n_params) && realpath(path, self)) {
        sib.kernel = f->name;
        sib.n_params = f->n_params;
        sib.self = self;
        sib_find(&sib, self);
        if (sib.m) {
            /* named from the kernel's folder, as a user would look for it */
            size_t dl = (size_t)(strrchr(self, '/') - self);
            bool under = !strncmp(sib.path, self, dl) && sib.path[dl] == '/';
            label = hk_strdup(under ? sib.path + dl + 1 : sib.path);
            ext = (infer_site){ .m = sib.m, .text = sib.text, .len = sib.len, .label = label };
        }
    }
    /* a header from the project's include folders builds only with them (issue 14) */
    if ((rc = spec_ccdb_include_dirs(path, &incs, &incs_db)) != HK_OK)
        goto out;
    const char *slash = strrchr(path, '/');
    rc = infer_model(m, k, text, len, src, slash ? slash + 1 : path, sib.m && label ? &ext : NULL, spec_path,
                     (const char *const *)incs, incs_db, out, err, errlen);
out:
    hk_strv_free(incs);
    hk_free(incs_db);
    an_model_free(sib.m);
    hk_free(sib.text);
    hk_free(sib.path);
    hk_free(label);
    an_model_free(m);
    hk_free(src);
    hk_free(text);
    return rc;
}

int spec_infer_save(const spec_inference *inf, const char *spec_path, bool replace)
{
    char *dump = json_dumps(inf->spec, JSON_INDENT(2));
    if (!dump)
        return HK_ENOMEM;
    int rc = HK_OK;
    int fd = open(spec_path, O_WRONLY | O_CREAT | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL), 0644);
    if (fd < 0) {
        rc = HK_EIO;
        goto out;
    }
    size_t n = strlen(dump), at = 0;
    while (at < n) {
        ssize_t w = write(fd, dump + at, n - at);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        at += (size_t)w;
    }
    int saved = errno;
    bool bad = at < n || write(fd, "\n", 1) != 1;
    if (close(fd) != 0)
        bad = true;
    if (bad) {
        unlink(spec_path);
        errno = saved;
        rc = HK_EIO;
    }
out:
    hk_free(dump);
    return rc;
}

/* ---- where a kernel's spec lives ---- */

char *spec_default_path(const char *path, const char *kernel)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return hk_asprintf("%.*s%.*s.%s.bench.json", (int)(base - path), path, (int)stem, base, kernel);
}

char *spec_find(const char *path, const char *kernel)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *cands[3] = { spec_default_path(path, kernel),
                       hk_asprintf("%.*s%s.bench.json", (int)(base - path), path, kernel),
                       hk_asprintf("%.*s%.*s.bench.json", (int)(base - path), path, (int)stem, base) };
    char *found = NULL;
    for (int i = 0; i < 3; i++) {
        if (!found && cands[i] && access(cands[i], R_OK) == 0)
            found = cands[i];
        else
            hk_free(cands[i]);
    }
    return found;
}

int spec_infer(const char *path, const char *kernel, const char *spec_path, spec_inference *out,
               char *err, size_t errlen)
{
    if (hk_i18n_lang() == HK_LANG_EN)
        return infer_once(path, kernel, spec_path, out, err, errlen);
    /* The notes, doubts and err speak the user's language; the spec's "inferred" list stays
     * English, as the rest of its JSON does not change with the language (docs/i18n.md):
     * taken from the same inference in English (it is deterministic: as many notes). */
    spec_inference en;
    int was = hk_i18n_thread_lang(HK_LANG_EN);
    int rc_en = infer_once(path, kernel, spec_path, &en, NULL, 0);
    hk_i18n_thread_lang(was);
    int rc = infer_once(path, kernel, spec_path, out, err, errlen);
    if (rc == HK_OK && rc_en == HK_OK) {
        json_t *notes = json_object_get(en.spec, "inferred");
        if (notes && json_object_set(out->spec, "inferred", notes) != 0)
            rc = HK_ENOMEM;
    } else if (rc == HK_OK && rc_en == HK_ENOMEM) {
        rc = HK_ENOMEM;
    }
    spec_inference_free(&en);
    if (rc != HK_OK)
        spec_inference_free(out);
    return rc;
}
