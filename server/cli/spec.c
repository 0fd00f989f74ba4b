/* `hkls spec`: the skeleton bench spec for a kernel. The analysis finds the kernel and
 * its launch site; spec_skeleton() turns them into a harness-form spec, which is
 * validated by the same parser the engine uses before it is written. */
#include "cli/cli_spec.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "core/hk.h"
#include "spec/spec.h"

#define SPEC_CLI_MAX_SOURCE ((size_t)16 << 20)

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hkls spec FILE --kernel NAME [-o OUT] [--force]\n"
            "Writes a harness-form bench spec for kernel NAME of FILE, inferred from its\n"
            "signature and launch site, to OUT (default: stdout). Edit the buffer counts,\n"
            "kinds and sizes it guessed; docs/bench-spec.md describes every field.\n");
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = hk_malloc(SPEC_CLI_MAX_SOURCE + 1);
    size_t n = buf ? fread(buf, 1, SPEC_CLI_MAX_SOURCE + 1, f) : 0;
    bool bad = !buf || ferror(f) || n > SPEC_CLI_MAX_SOURCE;
    fclose(f);
    if (bad) {
        hk_free(buf);
        errno = buf ? EFBIG : ENOMEM;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The path to write as "source": relative to the spec's directory when the source lies
 * under it, else absolute. New string. */
static char *source_for(const char *file, const char *out)
{
    char src_real[PATH_MAX], dir_real[PATH_MAX];
    if (!realpath(file, src_real))
        return hk_strdup(file);
    char *dir = out ? hk_strdup(out) : hk_strdup("./x");
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

int cli_spec(int argc, char **argv)
{
    const char *file = NULL, *kernel = NULL, *out = NULL;
    bool force = false;
    hk_alloc_init_json();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--kernel") || !strcmp(a, "-k") || !strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "hkls spec: %s needs a value\n", a);
                return 2;
            }
            if (!strcmp(a, "--kernel") || !strcmp(a, "-k"))
                kernel = argv[++i];
            else
                out = argv[++i];
        } else if (!strcmp(a, "--force")) {
            force = true;
        } else if (a[0] == '-') {
            fprintf(stderr, "hkls spec: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "hkls spec: one FILE only (got %s and %s)\n", file, a);
            return 2;
        }
    }
    if (!file || !kernel) {
        usage(stderr);
        return 2;
    }
    if (out && !force && access(out, F_OK) == 0) {
        fprintf(stderr, "hkls spec: %s exists; use --force to replace it\n", out);
        return 1;
    }
    int code = 2;
    size_t len = 0;
    char *text = read_all(file, &len), *src = NULL, *json_text = NULL, *check_path = NULL;
    an_model *m = NULL;
    json_t *root = NULL;
    spec *s = NULL;
    spec_diags d = { 0 };
    if (!text) {
        fprintf(stderr, "hkls spec: cannot read %s: %s\n", file, strerror(errno));
        goto out;
    }
    int rc = an_analyze(text, len, &m);
    if (rc != HK_OK) {
        fprintf(stderr, "hkls spec: cannot analyse %s: %s\n", file, hk_strerror(rc));
        goto out;
    }
    long k = an_model_find_kernel(m, kernel);
    if (k < 0) {
        fprintf(stderr, "hkls spec: no kernel '%s' in %s; kernels:", kernel, file);
        for (size_t i = 0; i < m->n_funcs; i++)
            if (m->funcs[i].kind == AN_KERNEL)
                fprintf(stderr, " %s", m->funcs[i].name);
        fprintf(stderr, "\n");
        code = 1;
        goto out;
    }
    if (!(src = source_for(file, out)))
        goto nomem;
    if ((rc = spec_skeleton(m, k, text, len, src, &root)) != HK_OK) {
        if (rc == HK_EUNSUPPORTED) {
            fprintf(stderr, "hkls spec: kernel %s has no pointer parameter it can write (or no "
                    "parameters): a generated harness would have nothing to compare; use a "
                    "command-form spec (docs/bench-spec.md)\n", kernel);
            code = 1;
        } else {
            fprintf(stderr, "hkls spec: %s\n", hk_strerror(rc));
        }
        goto out;
    }
    if (!(json_text = json_dumps(root, JSON_INDENT(2))))
        goto nomem;
    /* Validate as if it were already at OUT, so "source" resolves as it will later. */
    check_path = out ? hk_strdup(out) : hk_asprintf("./%s.bench.json", kernel);
    if (!check_path)
        goto nomem;
    rc = spec_parse(json_text, strlen(json_text), check_path, &s, &d);
    for (size_t i = 0; i < d.n; i++) {
        char *msg = spec_diag_format(&d.items[i], out ? out : "(skeleton)");
        fprintf(stderr, "%s\n", msg ? msg : "out of memory");
        hk_free(msg);
    }
    if (rc != HK_OK) {
        fprintf(stderr, "hkls spec: the skeleton for %s does not validate (a bug: please report it)\n", kernel);
        code = 1;
        goto out;
    }
    if (out) {
        FILE *f = fopen(out, "w");
        if (!f || fprintf(f, "%s\n", json_text) < 0 || fclose(f) != 0) {
            fprintf(stderr, "hkls spec: cannot write %s: %s\n", out, strerror(errno));
            goto out;
        }
        fprintf(stderr, "hkls spec: wrote %s for kernel %s; check its counts, kinds and sizes\n", out, kernel);
    } else {
        printf("%s\n", json_text);
    }
    code = 0;
    goto out;
nomem:
    fprintf(stderr, "hkls spec: out of memory\n");
out:
    spec_free(s);
    spec_diags_free(&d);
    hk_free(json_text);
    hk_free(check_path);
    json_decref(root);
    an_model_free(m);
    hk_free(src);
    hk_free(text);
    return code;
}
