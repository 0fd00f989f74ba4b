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
    const char *summary;
};

static const struct cli_command commands[] = {
    {"check", cli_check, "compile files; print kernels, resources and errors (FILE:LINE)"},
    {"doctor", cli_doctor, "report toolchains, GPUs, profilers and runners found here"},
    {"optimize", cli_optimize, "optimize one kernel on the GPU (an episode); --help for options"},
    {"verify-candidate", cli_verify_candidate, "judge one candidate .cu against a spec's baseline"},
    {"history", cli_history, "episodes and version chains of a file's kernels (--json)"},
    {"report", cli_report, "print an episode's report (--format md|html|json, -o FILE)"},
    {"spec", cli_spec, "write a harness-form bench spec skeleton for a kernel (-o FILE)"},
    {"skills", cli_skills, "list and validate the skills knowledge base (--json, --hardware)"},
    {"rewrites", cli_rewrites, "a kernel's class and which rewrites apply, or what stops each"},
    {"apply", cli_apply, "write a verified version into its file, if the kernel is unchanged"},
    {"trust", cli_trust, "trust a folder's .hyperkernel.json (--list, --remove)"},
    {NULL, NULL, NULL},
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
    fprintf(f,
            "usage: hkls [--stdio] [--log FILE] [--log-level LEVEL]\n"
            "       hkls COMMAND [ARGS...]\n"
            "       hkls --version | --help\n"
            "\n"
            "Without a command, hkls speaks the Language Server Protocol on stdin/stdout.\n"
            "  --stdio            use stdin/stdout (the default)\n"
            "  --log FILE         append the log to FILE instead of stderr\n"
            "  --log-level LEVEL  error, warn (default), info, debug or trace\n"
            "  --version          print the version\n"
            "A command logs warnings to stderr; HK_LOG_LEVEL=LEVEL in its environment asks for\n"
            "more (debug: every benchmark process with its wall time).\n");
    if (commands[0].name) {
        fprintf(f, "\ncommands:\n");
        for (const struct cli_command *c = commands; c->name; c++)
            fprintf(f, "  hkls %-10s %s\n", c->name, c->summary);
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
            fprintf(stderr, "hkls: HK_LOG_LEVEL=%s is not a level (error, warn, info, debug or "
                            "trace); logging warnings\n", level);
    }
    if (argc > 1 && argv[1][0] != '-') {
        const struct cli_command *c = find_command(argv[1]);
        if (!c) {
            fprintf(stderr, "hkls: unknown command '%s'\n", argv[1]);
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
                fprintf(stderr, "hkls: %s needs a value\n", a);
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
            fprintf(stderr, "hkls: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    return lsp_main(&o);
}
