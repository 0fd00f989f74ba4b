/* hkls subcommands other than the language server itself. Each takes the
 * subcommand's own argc/argv (argv[0] is the subcommand name), prints to stdout
 * (reports) and stderr (errors), and returns the process exit code. They run
 * outside any editor session, so they may wait on their own child processes. */
#ifndef HK_CLI_CLI_H
#define HK_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* hkls check FILE... [--target nvidia:sm_90|dcu:gfx906] [--json] [--block N]
 *                    [--timeout SEC] [--compiler PATH] [-I DIR] [-D NAME[=V]] [--flag F]
 * Compiles each file (in parallel, on a libuv loop) and prints its kernels with
 * registers, spills, shared memory and occupancy, and the compiler's diagnostics as
 * FILE:LINE:COL: severity: message. Exit 0 when every file compiled, 1 when any has
 * compile errors (or timed out), 2 for usage errors, unreadable files or a missing
 * compiler. */
int cli_check(int argc, char **argv);

/* hkls doctor [--json]
 * Reports the toolchains (nvcc, ptxas, hipcc), GPUs (nvidia-smi, /dev/nvidia*,
 * rocm-smi, hy-smi, /dev/kfd), profilers (ncu, nsys, rocprof, hipprof),
 * disassemblers (cuobjdump, nvdisasm, llvm-objdump), runners (ssh, srun, sbatch) and
 * isolation tools (bwrap, prlimit) found here, with versions, and for each missing
 * one what the user loses. Exit 0 (it is a report), 2 for usage errors. */
int cli_doctor(int argc, char **argv);

/* hkls skills [--dir DIR] [--hardware ARCH] [--class CLASS] [--db PATH] [--json]
 * Loads and validates the skills knowledge base (server/skills; default directory:
 * sk_default_dir) and lists id, hardware, class, rewrite and the record from the history
 * database (when --db names one or the default one exists), best record first. Exit 0,
 * 1 when a skill file is broken (every problem printed as FILE: KEY: why) or the
 * database cannot be read, 2 for usage errors. (server/cli/skills_cmd.c) */
int cli_skills(int argc, char **argv);

/* hkls rewrites FILE --kernel NAME [--spec SPEC.json] [--hip] [--json]
 * The class the kernel model gives the kernel (or its near miss), then every rewrite of
 * the registry at its default parameters: applies, or the construct and line that stop
 * it. No GPU, no compile. Exit 0, 1 when the file cannot be read or parsed or has no such
 * kernel, 2 for usage errors and bad specs. (server/cli/rewrites_cmd.c) */
int cli_rewrites(int argc, char **argv);

/* hkls trust [FOLDER] | --remove [FOLDER] | --list
 * Adds FOLDER (default: the current directory; made canonical) to the user's trusted
 * folders ($XDG_CONFIG_HOME/hyperkernel/trusted.json), removes it, or lists them. Exit 0,
 * 1 when the folder does not exist or the list cannot be read or written, 2 for usage
 * errors. (server/cli/trust.c) */
int cli_trust(int argc, char **argv);


/* ---- human tables (server/cli/table.c) ----
 * Rows of text cells, printed with every column but the last padded to its widest cell in
 * terminal columns (not bytes: "é" is one, a CJK character two), two spaces apart. A note
 * is a line of its own between rows (an episode's error), outside the columns. */
#define CLI_TABLE_MAX_COLS 12
struct cli_table_row {
    char *cells[CLI_TABLE_MAX_COLS];
    bool note;
};
typedef struct {
    size_t ncols, nrows, cap;
    struct cli_table_row *rows;
} cli_table;

/* Terminal columns of UTF-8 text s (NULL: 0). */
size_t cli_display_width(const char *s);
void cli_table_init(cli_table *t, size_t ncols);
/* Copies t->ncols cells (NULL: empty). HK_OK or HK_ENOMEM (the row is not added). */
int cli_table_row(cli_table *t, const char *const *cells);
/* Copies text as a note line. HK_OK or HK_ENOMEM. */
int cli_table_note(cli_table *t, const char *text);
/* Prints every row, each line after indent (NULL: none). */
void cli_table_print(const cli_table *t, FILE *out, const char *indent);
void cli_table_free(cli_table *t);

#endif
