/* `hkls spec`: the inferred bench spec for a kernel (spec/infer.c, the service `hkls
 * optimize` and the editor use too), validated by the engine's parser before it is
 * written, with what was guessed and what needs checking on stderr. */
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
#include "core/i18n.h"
#include "spec/infer.h"

#define SPEC_CLI_MAX_SOURCE ((size_t)16 << 20)

static void usage(FILE *f)
{
    fputs(hk_tr(HK_MSG_CLI_SPEC_USAGE), f);
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
                fprintf(stderr, hk_tr(HK_MSG_CLI_SPEC_NEEDS_VALUE), a);
                return 2;
            }
            if (!strcmp(a, "--kernel") || !strcmp(a, "-k"))
                kernel = argv[++i];
            else
                out = argv[++i];
        } else if (!strcmp(a, "--force")) {
            force = true;
        } else if (a[0] == '-') {
            fprintf(stderr, hk_tr(HK_MSG_CLI_SPEC_UNKNOWN_OPTION), a);
            usage(stderr);
            return 2;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, hk_tr(HK_MSG_CLI_SPEC_ONE_FILE), file, a);
            return 2;
        }
    }
    if (!file || !kernel) {
        usage(stderr);
        return 2;
    }
    if (out && !force && access(out, F_OK) == 0) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_SPEC_EXISTS), out);
        return 1;
    }
    int code = 2;
    char *json_text = NULL, *check_path = NULL, err[1024] = "";
    spec_inference inf = { 0 };
    /* Inferred as if it were already at OUT, so "source" resolves as it will later. */
    check_path = out ? hk_strdup(out) : hk_asprintf("./%s.bench.json", kernel);
    if (!check_path)
        goto nomem;
    int rc = spec_infer(file, kernel, check_path, &inf, err, sizeof err);
    if (rc != HK_OK) {
        fprintf(stderr, "hkls spec: %s\n", err[0] ? err : hk_strerror(rc));
        code = rc == HK_EUNSUPPORTED || rc == HK_ENOENT ? 1 : 2;
        goto out;
    }
    for (size_t i = 0; i < inf.n_notes; i++) {
        fprintf(stderr, hk_tr(HK_MSG_SPEC_CLI_INFERRED), inf.notes[i]);
        fputc('\n', stderr);
    }
    for (size_t i = 0; i < inf.n_doubts; i++) {
        fprintf(stderr, hk_tr(HK_MSG_SPEC_CLI_CHECK), inf.doubts[i]);
        fputc('\n', stderr);
    }
    if (!(json_text = json_dumps(inf.spec, JSON_INDENT(2))))
        goto nomem;
    if (out) {
        FILE *f = fopen(out, "w");
        if (!f || fprintf(f, "%s\n", json_text) < 0 || fclose(f) != 0) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_SPEC_WRITE), out, strerror(errno));
            goto out;
        }
        fprintf(stderr, hk_tr(HK_MSG_SPEC_CLI_WROTE), out, kernel);
        fputc('\n', stderr);
    } else {
        printf("%s\n", json_text);
    }
    code = 0;
    goto out;
nomem:
    fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_SPEC_OOM));
out:
    spec_inference_free(&inf);
    hk_free(json_text);
    hk_free(check_path);
    return code;
}
