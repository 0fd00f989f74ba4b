/* hkls spec: writes a harness-form bench spec skeleton for one kernel. */
#ifndef HK_CLI_CLI_SPEC_H
#define HK_CLI_CLI_SPEC_H

/* hkls spec FILE --kernel NAME [-o OUT] [--force]
 * Analyses FILE, writes a skeleton spec for kernel NAME (from its signature and launch
 * site) to OUT, or to stdout without -o, after checking it with the spec validator.
 * argv[0] is "spec". Exit 0 on success, 1 when the kernel is not found, the skeleton
 * does not validate or OUT exists (without --force), 2 for usage or I/O errors. */
int cli_spec(int argc, char **argv);

#endif
