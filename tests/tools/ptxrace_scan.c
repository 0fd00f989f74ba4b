/* ptxrace_scan PTX...: the referee's static shared-memory race scan (server/measure/ptxrace.h)
 * over PTX files, one line each: "FILE | found | func | k | load line | store line | source
 * lines | loads resolved/seen | stores resolved/seen | functions (skipped)". For the false-
 * positive sweep of bench/results/2026-12-06-shared-race-cpu-s39.md. Exit 0; 1 when any file
 * has a finding; 2 when a file could not be read. */
#include <stdio.h>

#include "core/hk.h"
#include "measure/ptxrace.h"

int main(int argc, char **argv)
{
    int status = 0;
    for (int i = 1; i < argc; i++) {
        ptxrace_result r;
        int rc = ptxrace_file(argv[i], &r);
        if (rc) {
            printf("%s | error %d\n", argv[i], rc);
            status = 2;
            continue;
        }
        if (r.found) {
            printf("%s | race | %s | %ld | %ld: %s | %ld: %s | %s:%ld/%ld", argv[i], r.func, r.k,
                   r.ld_line, r.ld_text, r.st_line, r.st_text, r.src_file, r.ld_src, r.st_src);
            if (!status)
                status = 1;
        } else {
            printf("%s | none", argv[i]);
        }
        printf(" | loads %ld/%ld | stores %ld/%ld | functions %ld (%ld skipped)\n",
               r.resolved_loads, r.shared_loads, r.resolved_stores, r.shared_stores, r.functions,
               r.skipped);
    }
    return status;
}
