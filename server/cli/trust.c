/* hkls trust: the user's list of trusted folders from the shell (issue 12). The editor
 * server reads the same list (server/lsp/trust.c); this is how a Neovim, Emacs or any
 * other user trusts a folder without an editor command, and how anyone reviews the list. */
#include "cli/cli.h"

#include "core/hk.h"
#include "core/i18n.h"
#include "lsp/lsp.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void trust_usage(FILE *f)
{
    fprintf(f, "%s", hk_tr(HK_MSG_CLI_TRUST_USAGE));
}

int cli_trust(int argc, char **argv)
{
    int code = 1;
    bool list = false, remove = false;
    const char *folder = NULL;
    char *file = NULL, *canon = NULL;
    char **v = NULL;
    char cwd[PATH_MAX];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--list") || !strcmp(a, "-l")) {
            list = true;
        } else if (!strcmp(a, "--remove") || !strcmp(a, "-r")) {
            remove = true;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            trust_usage(stdout);
            return 0;
        } else if (a[0] == '-' || folder) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_TRUST_UNEXPECTED), a);
            trust_usage(stderr);
            return 2;
        } else {
            folder = a;
        }
    }
    if (list && (remove || folder)) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_TRUST_LIST_NO_FOLDER));
        return 2;
    }
    int rc = lsp_trust_file(&file);
    if (rc) {
        fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_TRUST_NO_PLACE));
        goto out;
    }
    if (list) {
        if ((rc = lsp_trust_read(file, &v))) {
            fprintf(stderr, "hkls trust: %s: %s\n", file, hk_strerror(rc));
            goto out;
        }
        for (char **p = v; *p; p++)
            printf("%s\n", *p);
        code = 0;
        goto out;
    }
    if (!folder) {
        if (!getcwd(cwd, sizeof cwd)) {
            fprintf(stderr, "%s", hk_tr(HK_MSG_CLI_TRUST_NO_CWD));
            goto out;
        }
        folder = cwd;
    }
    /* A relative folder is relative to here; realpath in lsp_trust_update resolves it,
     * but a removed folder that is gone must be named absolutely. */
    bool changed = false;
    rc = lsp_trust_update(file, folder, !remove, &canon, &changed);
    if (rc) {
        fprintf(stderr, hk_tr(HK_MSG_CLI_TRUST_FAILED), remove ? "--remove " : "", folder,
                rc == HK_ENOENT ? hk_tr(HK_MSG_CLI_TRUST_NO_FOLDER) : hk_strerror(rc), file);
        goto out;
    }
    printf(hk_tr(remove ? (changed ? HK_MSG_TRUST_REMOVED : HK_MSG_TRUST_WAS_NOT)
                        : (changed ? HK_MSG_TRUST_ADDED : HK_MSG_TRUST_ALREADY)),
           canon);
    printf("\n");
    code = 0;
out:
    lsp_trust_free(v);
    hk_free(canon);
    hk_free(file);
    return code;
}
