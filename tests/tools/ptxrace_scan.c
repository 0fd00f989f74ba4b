/* ptxrace_scan [--block X,Y,Z]... PTX...: the referee's static shared-memory race scan
 * (server/measure/ptxrace.h) over PTX files, one line each: "FILE | found | func | k | load
 * line | store line | source lines | loads resolved/seen | stores resolved/seen | functions
 * (skipped)". With --block, each file is judged at every shape given (ptxrace_file_shape) and
 * a finding names the first shape that gives one ("| block X,Y,Z" after the source lines);
 * without, at no known shape. For the false-positive sweeps of
 * bench/results/2026-12-06-shared-race-cpu-s39.md and -s40.md. Exit 0; 1 when any file has a
 * finding; 2 when a file could not be read or an option is wrong. */
#include <stdio.h>
#include <string.h>

#include "core/hk.h"
#include "measure/ptxrace.h"

enum { SHAPES = 16 };

int main(int argc, char **argv)
{
    int status = 0;
    long shapes[SHAPES][3];
    int ns = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--block")) {
            long x = 0, y = 1, z = 1;
            if (i + 1 >= argc || ns == SHAPES ||
                sscanf(argv[i + 1], "%ld,%ld,%ld", &x, &y, &z) < 1 || x < 1 || y < 1 || z < 1) {
                fprintf(stderr, "ptxrace_scan: --block X[,Y,Z] (at most %d)\n", SHAPES);
                return 2;
            }
            shapes[ns][0] = x;
            shapes[ns][1] = y;
            shapes[ns][2] = z;
            ns++;
            i++;
            continue;
        }
        ptxrace_result r;
        int rc = HK_OK, at = -1;
        for (int k = 0; k < (ns ? ns : 1) && rc == HK_OK; k++) {
            ptxrace_result one;
            rc = ptxrace_file_shape(argv[i], ns ? shapes[k] : NULL, &one);
            if (!k || (one.found && !r.found)) {
                if (one.found)
                    at = k;
                r = one;
            }
        }
        if (rc) {
            printf("%s | error %d\n", argv[i], rc);
            status = 2;
            continue;
        }
        if (r.found) {
            printf("%s | race | %s | %ld | %ld: %s | %ld: %s | %s:%ld/%ld", argv[i], r.func, r.k,
                   r.ld_line, r.ld_text, r.st_line, r.st_text, r.src_file, r.ld_src, r.st_src);
            if (ns && at >= 0)
                printf(" | block %ld,%ld,%ld", shapes[at][0], shapes[at][1], shapes[at][2]);
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
