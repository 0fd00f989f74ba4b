/* Command-line entries of the episode engine: `hkls optimize` and `hkls verify-candidate`.
 * Each takes the subcommand's argc/argv (argv[0] is the subcommand name) and returns the
 * process exit status. Main thread of a short-lived process (they install signal handlers). */
#ifndef HK_CLI_CLI_ENGINE_H
#define HK_CLI_CLI_ENGINE_H

/* hkls optimize FILE --kernel NAME --spec SPEC.json [options]: runs one episode.
 * Exit: 0 completed, 1 failed, 2 bad usage or input (spec errors, missing kernel),
 * 3 no GPU (what needs none was still done and recorded), 130 stopped (Ctrl-C/SIGTERM). */
int cli_optimize(int argc, char **argv);

/* hkls verify-candidate --spec SPEC.json --candidate FILE.cu [--json]: judges one candidate
 * against the spec's baseline through the episode's pipeline.
 * Exit: 0 accepted, 1 rejected (the reason is printed), 2 bad usage or input,
 * 3 no GPU, 4 the baseline itself failed, 130 stopped. */
int cli_verify_candidate(int argc, char **argv);

#endif
