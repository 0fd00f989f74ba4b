/* ptxrace_scan [--no-data] [--block X,Y,Z]... [--spec SPEC] PTX...: the referee's static
 * shared-memory race scan (server/measure/ptxrace.h) over PTX files, one line each: "FILE |
 * found | func | k (`barrier`: a barrier that data decides, then the load line is what decides
 * it and the store line the barrier) | load line | store line | source lines | loads resolved/seen | stores
 * resolved/seen | functions (skipped) | data N" (N: integer loads of module data read as its
 * initializer). With --block, each file is judged at every shape given (ptxrace_file_shape) and
 * a finding names the first shape that gives one ("| block X,Y,Z" after the source lines);
 * without, at no known shape. With --spec (for the files after it, until the next --spec; `-`:
 * none), each file is judged at the spec's launches as the referee judges them
 * (measure_launch_shapes: its block and its scalar arguments at each size set, applied to the
 * .entry the spec's kernel names, plain or mangled `_Z<len>NAME`; `| entry -` when none is
 * there: then every .entry gets the shape and no argument), and --block is ignored. At a
 * shape or a spec's launch, module data that nothing writes reads as its initializer
 * (ptxdata.h; with --spec, not the spec's constants), unless --no-data (before session 41).
 * For the false-positive sweeps of
 * bench/results/2026-12-06-shared-race-cpu-s39.md and -s40.md. Exit 0; 1 when any file has a
 * finding; 2 when a file could not be read or an option is wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "measure/measure.h"
#include "measure/ptxrace.h"
#include "spec/spec.h"

enum { SHAPES = 16 };

/* The .entry of path whose name is kernel, or kernel mangled (`_Z<len>kernel...`), into dst
 * ("" when none). */
static void find_entry(const char *path, const char *kernel, char *dst, size_t cap)
{
    dst[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    char line[4096], mangled[300];
    snprintf(mangled, sizeof mangled, "_Z%zu%s", strlen(kernel), kernel);
    while (!dst[0] && fgets(line, sizeof line, fp)) {
        const char *e = strstr(line, ".entry");
        if (!e)
            continue;
        e += 6;
        while (*e == ' ' || *e == '\t')
            e++;
        size_t n = strcspn(e, " \t(\r\n");
        if ((n == strlen(kernel) && !strncmp(e, kernel, n)) ||
            (n > strlen(mangled) && !strncmp(e, mangled, strlen(mangled)) &&
             !(e[strlen(mangled)] >= '0' && e[strlen(mangled)] <= '9')))
            snprintf(dst, cap, "%.*s", (int)n, e);
    }
    fclose(fp);
}

/* k as printed: the lane distance, or `barrier` */
static const char *kk(const ptxrace_result *r, char *buf)
{
    if (r->barrier)
        return "barrier";
    snprintf(buf, 24, "%ld", r->k);
    return buf;
}

int main(int argc, char **argv)
{
    int status = 0;
    long shapes[SHAPES][3];
    int ns = 0;
    spec *sp = NULL;
    measure_shapes launches;
    bool no_data = false;
    char kb[24];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--no-data")) {
            no_data = true;
            continue;
        }
        if (!strcmp(argv[i], "--spec")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ptxrace_scan: --spec SPEC\n");
                return 2;
            }
            spec_free(sp);
            sp = NULL;
            if (strcmp(argv[i + 1], "-")) {
                spec_diags d;
                memset(&d, 0, sizeof d);
                if (spec_load(argv[i + 1], &sp, &d) != HK_OK || !sp) {
                    fprintf(stderr, "ptxrace_scan: spec %s not read\n", argv[i + 1]);
                    spec_diags_free(&d);
                    return 2;
                }
                spec_diags_free(&d);
                measure_launch_shapes(sp, NULL, &launches);
            }
            i++;
            continue;
        }
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
        if (sp) { /* the referee's launches: each shape with its arguments, as race_read */
            char entry[256];
            find_entry(argv[i], sp->kernel, entry, sizeof entry);
            bool none = launches.unknown || !launches.n;
            for (int k = none ? -1 : 0; k < launches.n && rc == HK_OK; k++) {
                ptxrace_launch l;
                memset(&l, 0, sizeof l);
                if (k >= 0) {
                    memcpy(l.shape, launches.dim[k], sizeof l.shape);
                    l.nargs = entry[0] ? launches.nargs : 0;
                    for (int a = 0; a < l.nargs && a < PTXRACE_ARGS; a++) {
                        l.known[a] = launches.arg_known[k][a];
                        l.arg[a] = (int64_t)launches.arg[k][a];
                    }
                    if (!no_data)
                        measure_module_data(&launches, &l);
                }
                ptxrace_result one;
                rc = ptxrace_file_launch(argv[i], k < 0 ? NULL : &l, entry[0] ? entry : NULL, &one);
                if (k == (none ? -1 : 0) || (one.found && !r.found)) {
                    r = one;
                    at = one.found ? k : -1;
                }
                if (r.found)
                    break;
            }
            if (rc) {
                printf("%s | error %d\n", argv[i], rc);
                status = 2;
                continue;
            }
            if (r.found) {
                printf("%s | race | %s | %s | %ld: %s | %ld: %s | %s:%ld/%ld", argv[i], r.func,
                       kk(&r, kb), r.ld_line, r.ld_text, r.st_line, r.st_text, r.src_file, r.ld_src,
                       r.st_src);
                if (at >= 0) {
                    printf(" | block %ld,%ld,%ld | args", launches.dim[at][0], launches.dim[at][1],
                           launches.dim[at][2]);
                    for (int a = 0; a < launches.nargs; a++)
                        if (launches.arg_known[at][a])
                            printf(" %d=%lld", a, launches.arg[at][a]);
                }
                if (!status)
                    status = 1;
            } else {
                printf("%s | none", argv[i]);
            }
            printf(" | entry %s | launches %d | loads %ld/%ld | stores %ld/%ld | functions %ld (%ld skipped) | data %ld\n",
                   entry[0] ? entry : "-", launches.n, r.resolved_loads, r.shared_loads,
                   r.resolved_stores, r.shared_stores, r.functions, r.skipped, r.data_loads);
            continue;
        }
        for (int k = 0; k < (ns ? ns : 1) && rc == HK_OK; k++) {
            ptxrace_result one;
            ptxrace_launch l; /* a shape alone; module data as a harness-form launch with
                               * no constant reads it, unless --no-data */
            memset(&l, 0, sizeof l);
            if (ns)
                memcpy(l.shape, shapes[k], sizeof l.shape);
            l.module_data = !no_data;
            rc = ptxrace_file_launch(argv[i], ns ? &l : NULL, NULL, &one);
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
            printf("%s | race | %s | %s | %ld: %s | %ld: %s | %s:%ld/%ld", argv[i], r.func, kk(&r, kb),
                   r.ld_line, r.ld_text, r.st_line, r.st_text, r.src_file, r.ld_src, r.st_src);
            if (ns && at >= 0)
                printf(" | block %ld,%ld,%ld", shapes[at][0], shapes[at][1], shapes[at][2]);
            if (!status)
                status = 1;
        } else {
            printf("%s | none", argv[i]);
        }
        printf(" | loads %ld/%ld | stores %ld/%ld | functions %ld (%ld skipped) | data %ld\n",
               r.resolved_loads, r.shared_loads, r.resolved_stores, r.shared_stores, r.functions,
               r.skipped, r.data_loads);
    }
    spec_free(sp);
    return status;
}
