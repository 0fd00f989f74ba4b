/* Command-line entries that read the history database: `hkls history`, `hkls report` and
 * `hkls apply`. Each takes the subcommand's argc/argv (argv[0] is the subcommand name),
 * prints results on stdout and errors on stderr, and returns the process exit status:
 * 0 done, 1 failed (no such episode or version, database or file errors), 2 bad usage,
 * 3 (apply only) refused because the kernel's text changed since the episode began.
 * The database is $HK_DB, else the default path (ep_default_db_path), unless --db says;
 * a missing database is an error, never silently created. Each first marks the episodes
 * whose worker died as interrupted (store_mark_interrupted, as the editor's server does),
 * so none shows as running forever. Main thread of a short-lived process. */
#ifndef HK_CLI_CLI_HISTORY_H
#define HK_CLI_CLI_HISTORY_H

/* hkls history [FILE] [--kernel NAME] [--db PATH] [--json] [--limit N]
 * Per kernel (of FILE, or all), its episodes (newest first: id, name, status, start,
 * duration, device, best version and speedup) and its version chain (vN <- parent,
 * status, producer, median time, speedup with spread, reject reason). --json prints
 * {"db":..., "kernels":[{"id","file","name","content_hash","episodes":[...],"versions":[...]}]}
 * with the report module's field names. */
int cli_history(int argc, char **argv);

/* hkls report EPISODE [--format md|html|json] [--db PATH] [-o FILE]
 * EPISODE is an episode id or name (the newest with that name). Prints the report
 * (default Markdown) on stdout, or writes it to FILE atomically. */
int cli_report(int argc, char **argv);

/* hkls apply EPISODE [--version N] [--db PATH] [--dry-run]
 * Writes version N (default: the episode's best) of the episode's kernel into its file:
 * the kernel's definition is replaced by the version's, found with the analysis module.
 * Refused (exit 3, naming what changed and showing the diff) unless the kernel's text in
 * the file still has the content hash of the text the episode started from. When the
 * file is otherwise unchanged too, the version's whole verified text is written; when the
 * version also changed text outside the kernel and the file changed elsewhere, it is
 * refused too. --dry-run prints the unified diff and writes nothing. */
int cli_apply(int argc, char **argv);

#endif
