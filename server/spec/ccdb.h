/* compile_commands.json for a kernel's file: the one splitter of its "command" strings
 * (the editor's compile flags use it too, lsp/config.c) and the include directories a
 * project's build gives that file, for spec inference (issue 14: a kernel that includes
 * a header from the project's include/ folder builds in the harness only with them).
 * Pure functions on files and strings, any thread. */
#ifndef HK_SPEC_CCDB_H
#define HK_SPEC_CCDB_H

#include <stddef.h>

#include "core/strv.h"

/* A command line split into words as a POSIX shell would (single and double quotes,
 * backslashes), without expansions. A new NULL-terminated vector (hk_strv_free), NULL
 * on ENOMEM or an unbalanced quote. */
char **spec_split_command(const char *cmd);

/* The largest compile_commands.json read (a CMake build of a large project writes tens
 * of megabytes). */
#define SPEC_CCDB_MAX_BYTES ((size_t)64 << 20)

/* How many folders above the source's the search looks at (as the sibling search's
 * project root, spec/infer.c SIB_ROOT_UP). */
#define SPEC_CCDB_LEVELS 8

/* The include directories (-I, -isystem, -iquote, --include-path; relative ones taken
 * from the entry's "directory") of the entry of compile_commands.json for the source at
 * src, else of the first entry for a file in the same folder (a header's kernel is
 * compiled through the .cu beside it). The database is the nearest one in src's folder
 * or above (SPEC_CCDB_LEVELS), as compile_commands.json or build/compile_commands.json.
 * Only existing directories, as real paths, each once, in the command's order.
 * HK_OK with *dirs a new vector (hk_strv_free) or NULL when there is no database, no
 * entry or no include directory; *db (may be NULL) the database's path (new string) when
 * *dirs is set. HK_ENOMEM. An unreadable or malformed database counts as none. */
int spec_ccdb_include_dirs(const char *src, char ***dirs, char **db);

#endif
