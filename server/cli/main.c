/* hkls: the command-line entry. A small dispatcher: no arguments or --stdio run the
 * language server (server/lsp), subcommands go to their cli_* functions. */
#include "cli/cli.h"
#include "cli/cli_engine.h"
#include "cli/cli_history.h"
#include "cli/cli_spec.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "core/log.h"
#include "lsp/lsp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Subcommands: one line each. argv[0] of the call is the subcommand's name. */
struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    enum hk_msg summary;
};

static const struct cli_command commands[] = {
    {"check", cli_check, HK_MSG_CLI_CMD_CHECK},
    {"doctor", cli_doctor, HK_MSG_CLI_CMD_DOCTOR},
    {"optimize", cli_optimize, HK_MSG_CLI_CMD_OPTIMIZE},
    {"verify-candidate", cli_verify_candidate, HK_MSG_CLI_CMD_VERIFY},
    {"history", cli_history, HK_MSG_CLI_CMD_HISTORY},
    {"report", cli_report, HK_MSG_CLI_CMD_REPORT},
    {"spec", cli_spec, HK_MSG_CLI_CMD_SPEC},
    {"skills", cli_skills, HK_MSG_CLI_CMD_SKILLS},
    {"rewrites", cli_rewrites, HK_MSG_CLI_CMD_REWRITES},
    {"apply", cli_apply, HK_MSG_CLI_CMD_APPLY},
    {"trust", cli_trust, HK_MSG_CLI_CMD_TRUST},
    {NULL, NULL, HK_MSG_COUNT},
};

static const struct cli_command *find_command(const char *name)
{
    for (const struct cli_command *c = commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static void usage(FILE *f)
{
    fputs(hk_tr(HK_MSG_CLI_MAIN_USAGE), f);
    if (commands[0].name) {
        fprintf(f, "%s", hk_tr(HK_MSG_CLI_MAIN_COMMANDS));
        for (const struct cli_command *c = commands; c->name; c++)
            fprintf(f, "  hkls %-10s %s\n", c->name, hk_tr(c->summary));
    }
}

int main(int argc, char **argv)
{
    struct lsp_opts o = {.log_path = NULL, .log_level = NULL, .in_fd = 0, .out_fd = 1};
    /* the commands speak the environment's language; the server picks its own at
     * initialize (docs/i18n.md) */
    hk_i18n_set(hk_i18n_pick(NULL, hk_i18n_env_locale()));
    /* the commands log warnings to stderr; HK_LOG_LEVEL asks for more (the server takes
     * --log-level instead) */
    const char *level = getenv("HK_LOG_LEVEL");
    enum hk_log_level lv;
    if (level && *level) {
        if (hk_log_parse_level(level, &lv) == HK_OK)
            hk_log_set_level(lv);
        else
            fprintf(stderr, hk_tr(HK_MSG_CLI_MAIN_LOG_LEVEL), level);
    }
    if (argc > 1 && argv[1][0] != '-') {
        const struct cli_command *c = find_command(argv[1]);
        if (!c) {
            fprintf(stderr, hk_tr(HK_MSG_CLI_MAIN_UNKNOWN_COMMAND), argv[1]);
            usage(stderr);
            return 2;
        }
        return c->run(argc - 1, argv + 1);
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
            printf("hkls %s\n", HK_VERSION);
            return 0;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--stdio")) {
            continue;
        } else if (!strcmp(a, "--log") || !strcmp(a, "--log-level")) {
            if (i + 1 >= argc) {
                fprintf(stderr, hk_tr(HK_MSG_CLI_MAIN_NEEDS_VALUE), a);
                return 2;
            }
            if (!strcmp(a, "--log"))
                o.log_path = argv[++i];
            else
                o.log_level = argv[++i];
        } else if (!strncmp(a, "--log=", 6)) {
            o.log_path = a + 6;
        } else if (!strncmp(a, "--log-level=", 12)) {
            o.log_level = a + 12;
        } else {
            fprintf(stderr, hk_tr(HK_MSG_CLI_MAIN_UNKNOWN_ARG), a);
            usage(stderr);
            return 2;
        }
    }
    return lsp_main(&o);
}
