/* `hkls doctor`: what this machine offers the optimizer (compilers, GPUs, profilers,
 * disassemblers, runners, isolation) and, for each thing missing, what the user loses.
 * Tools are found the way the server finds them (cc_find_tool) and asked for their
 * version with a short timeout, so a hung driver cannot hang the report. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "measure/cmdform.h"
#include "measure/harness.h"
#include "runners/runner.h"
#include "skills/skills.h"

extern char **environ;

#define DOCTOR_TIMEOUT_MS 8000
#define DOCTOR_OUTPUT_MAX (64 * 1024)

enum probe_kind { PROBE_TOOL, PROBE_DEVICE };

struct probe {
    const char *category;
    const char *name;            /* what the user knows it as */
    enum probe_kind kind;
    enum cc_backend where;       /* which toolkit directories to search */
    const char *const *names;    /* executables to try, NULL-terminated (default: name) */
    const char *const *args;     /* version/query arguments */
    const char *device_glob;     /* PROBE_DEVICE: files that must exist */
    enum hk_msg cost;            /* one sentence: what is lost without it (the JSON's "cost"
                                  * is its English, the human output the user's language) */
};

static const char *const v_long[] = {"--version", NULL};
static const char *const v_short[] = {"-V", NULL};
static const char *const nvsmi_q[] = {"--query-gpu=name,compute_cap,memory.total,driver_version",
                                      "--format=csv,noheader", NULL};
static const char *const rocmsmi_q[] = {"--showproductname", NULL};
static const char *const hysmi_q[] = {NULL};
static const char *const ncu_v[] = {"--version", NULL};
static const char *const prlimit_v[] = {"--version", NULL};
static const char *const llvm_objdump_names[] = {"llvm-objdump", "llvm-objdump-19",
                                                 "llvm-objdump-18", "llvm-objdump-17",
                                                 "llvm-objdump-16", "llvm-objdump-15",
                                                 "llvm-objdump-14", NULL};
static const char *const rocprof_names[] = {"rocprof", "rocprofv2", "rocprofv3", NULL};

static const struct probe probes[] = {
    {"toolchains", "nvcc", PROBE_TOOL, CC_NVIDIA, NULL, v_long, NULL,
     HK_MSG_DOC_COST_NVCC},
    {"toolchains", "ptxas", PROBE_TOOL, CC_NVIDIA, NULL, v_long, NULL,
     HK_MSG_DOC_COST_PTXAS},
    {"toolchains", "hipcc", PROBE_TOOL, CC_DCU, NULL, v_long, NULL,
     HK_MSG_DOC_COST_HIPCC},
    {"gpus", "nvidia-smi", PROBE_TOOL, CC_NVIDIA, NULL, nvsmi_q, NULL,
     HK_MSG_DOC_COST_NVIDIA_SMI},
    {"gpus", "/dev/nvidia*", PROBE_DEVICE, CC_NVIDIA, NULL, NULL, "/dev/nvidia[0-9]*",
     HK_MSG_DOC_COST_NVIDIA_DEV},
    {"gpus", "rocm-smi", PROBE_TOOL, CC_DCU, NULL, rocmsmi_q, NULL,
     HK_MSG_DOC_COST_ROCM_SMI},
    {"gpus", "hy-smi", PROBE_TOOL, CC_DCU, NULL, hysmi_q, NULL,
     HK_MSG_DOC_COST_HY_SMI},
    {"gpus", "/dev/kfd", PROBE_DEVICE, CC_DCU, NULL, NULL, "/dev/kfd",
     HK_MSG_DOC_COST_KFD},
    {"profilers", "ncu", PROBE_TOOL, CC_NVIDIA, NULL, ncu_v, NULL,
     HK_MSG_DOC_COST_NCU},
    {"profilers", "nsys", PROBE_TOOL, CC_NVIDIA, NULL, v_long, NULL,
     HK_MSG_DOC_COST_NSYS},
    {"profilers", "rocprof", PROBE_TOOL, CC_DCU, rocprof_names, v_long, NULL,
     HK_MSG_DOC_COST_ROCPROF},
    {"profilers", "hipprof", PROBE_TOOL, CC_DCU, NULL, v_long, NULL,
     HK_MSG_DOC_COST_HIPPROF},
    {"checkers", "compute-sanitizer", PROBE_TOOL, CC_NVIDIA, NULL, v_long, NULL,
     HK_MSG_DOC_COST_SANITIZER},
    {"disassemblers", "cuobjdump", PROBE_TOOL, CC_NVIDIA, NULL, v_long, NULL,
     HK_MSG_DOC_COST_CUOBJDUMP},
    {"disassemblers", "nvdisasm", PROBE_TOOL, CC_NVIDIA, NULL, v_long, NULL,
     HK_MSG_DOC_COST_NVDISASM},
    {"disassemblers", "llvm-objdump", PROBE_TOOL, CC_DCU, llvm_objdump_names, v_long, NULL,
     HK_MSG_DOC_COST_LLVM_OBJDUMP},
    {"runners", "ssh", PROBE_TOOL, CC_NVIDIA, NULL, v_short, NULL,
     HK_MSG_DOC_COST_SSH},
    {"runners", "srun", PROBE_TOOL, CC_NVIDIA, NULL, v_long, NULL,
     HK_MSG_DOC_COST_SRUN},
    {"runners", "sbatch", PROBE_TOOL, CC_NVIDIA, NULL, v_long, NULL,
     HK_MSG_DOC_COST_SBATCH},
    {"isolation", "bwrap", PROBE_TOOL, CC_NVIDIA, NULL, v_long, NULL,
     HK_MSG_DOC_COST_BWRAP},
    {"isolation", "prlimit", PROBE_TOOL, CC_NVIDIA, NULL, prlimit_v, NULL,
     HK_MSG_DOC_COST_PRLIMIT},
};

static const char *const categories[] = {"toolchains", "gpus", "profilers", "checkers",
                                         "disassemblers", "runners", "isolation"};
static const enum hk_msg category_titles[] = {
    HK_MSG_DOC_CAT_TOOLCHAINS, HK_MSG_DOC_CAT_GPUS,     HK_MSG_DOC_CAT_PROFILERS,
    HK_MSG_DOC_CAT_CHECKERS,   HK_MSG_DOC_CAT_DISASSEMBLERS, HK_MSG_DOC_CAT_RUNNERS,
    HK_MSG_DOC_CAT_ISOLATION};

/* What the missing tool named name costs, in the user's language ("" when unknown). */
static const char *cost_text(const char *name)
{
    for (size_t i = 0; name && i < HK_ARRAY_LEN(probes); i++)
        if (!strcmp(probes[i].name, name))
            return hk_tr(probes[i].cost);
    return "";
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs argv with stdout+stderr captured (capped), stdin from /dev/null, in its own
 * process group; kills the group after timeout_ms. *out: new string (may be empty).
 * *status: the exit code, or -1 when killed or not run. HK_OK or HK_EIO/HK_ENOMEM. */
static int run_capture(char *const argv[], int timeout_ms, char **out, int *status)
{
    int rc = HK_EIO;
    int fds[2] = {-1, -1};
    pid_t pid = -1;
    struct hk_buf b;
    hk_buf_init(&b, DOCTOR_OUTPUT_MAX);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    bool fa_ok = false, at_ok = false;
    *out = NULL;
    *status = -1;
    if (pipe2(fds, O_CLOEXEC) != 0)
        goto out;
    if (posix_spawn_file_actions_init(&fa) != 0)
        goto out;
    fa_ok = true;
    if (posix_spawnattr_init(&at) != 0)
        goto out;
    at_ok = true;
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    if (posix_spawn(&pid, argv[0], &fa, &at, argv, environ) != 0) {
        pid = -1;
        goto out;
    }
    close(fds[1]);
    fds[1] = -1;
    long long deadline = now_ms() + timeout_ms;
    bool killed = false;
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            kill(-pid, SIGKILL);
            killed = true;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int n = poll(&p, 1, (int)left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            continue;
        char chunk[4096];
        ssize_t r = read(fds[0], chunk, sizeof chunk);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size_t room = b.max - b.len;
        hk_buf_append(&b, chunk, (size_t)r < room ? (size_t)r : room);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (!killed && WIFEXITED(ws))
        *status = WEXITSTATUS(ws);
    *out = b.data ? hk_buf_steal(&b) : hk_strdup("");
    rc = *out ? HK_OK : HK_ENOMEM;
out:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    if (at_ok)
        posix_spawnattr_destroy(&at);
    hk_buf_free(&b);
    return rc;
}

/* The most telling line of a version text: the first with "release"/"version" and a
 * dotted number, else the first with a dotted number, else the first non-empty one.
 * New string or NULL. */
static char *version_line(const char *text)
{
    const char *pick[3] = {NULL, NULL, NULL};
    size_t len[3] = {0, 0, 0};
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
            n--;
        bool dotted = false, named = false;
        for (size_t i = 0; i + 2 < n; i++)
            if (p[i] >= '0' && p[i] <= '9' && p[i + 1] == '.' && p[i + 2] >= '0' && p[i + 2] <= '9')
                dotted = true;
        for (size_t i = 0; i + 7 <= n; i++)
            if (!strncasecmp(p + i, "release", 7) || !strncasecmp(p + i, "version", 7))
                named = true;
        int rank = dotted && named ? 0 : dotted ? 1 : n ? 2 : -1;
        if (rank >= 0 && !pick[rank]) {
            pick[rank] = p;
            len[rank] = n;
        }
        if (!e)
            break;
        p = e + 1;
    }
    for (int r = 0; r < 3; r++)
        if (pick[r])
            return hk_strndup(pick[r], len[r] > 200 ? 200 : len[r]);
    return NULL;
}

/* Non-empty output lines, at most max, as a JSON array (new reference). */
static json_t *lines_json(const char *text, size_t max)
{
    json_t *a = json_array();
    for (const char *p = text; a && *p && json_array_size(a) < max;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
            n--;
        if (n)
            json_array_append_new(a, json_stringn(p, n < 300 ? n : 300));
        if (!e)
            break;
        p = e + 1;
    }
    return a;
}

static json_t *probe_tool(const struct probe *pr)
{
    json_t *j = json_object();
    const char *const single[] = {pr->name, NULL};
    const char *const *names = pr->names ? pr->names : single;
    char *path = NULL;
    for (size_t i = 0; names[i] && !path; i++)
        if (cc_find_tool(pr->where, names[i], &path) != HK_OK)
            path = NULL;
    /* ROCm keeps its LLVM tools apart from bin/. */
    if (!path && pr->names == llvm_objdump_names) {
        static const char *const dirs[] = {"/opt/rocm/llvm/bin/llvm-objdump",
                                           "/opt/dtk/llvm/bin/llvm-objdump", NULL};
        for (size_t i = 0; dirs[i] && !path; i++)
            if (access(dirs[i], X_OK) == 0)
                path = hk_strdup(dirs[i]);
    }
    json_object_set_new(j, "found", json_boolean(path != NULL));
    if (!path)
        return j;
    json_object_set_new(j, "path", json_string(path));
    size_t n_args = 0;
    while (pr->args && pr->args[n_args])
        n_args++;
    char **argv = hk_calloc(n_args + 2, sizeof *argv);
    if (argv) {
        argv[0] = path;
        for (size_t i = 0; i < n_args; i++)
            argv[i + 1] = (char *)pr->args[i];
        char *out = NULL;
        int st = -1;
        if (run_capture(argv, DOCTOR_TIMEOUT_MS, &out, &st) == HK_OK) {
            bool is_query = pr->args == nvsmi_q || pr->args == rocmsmi_q || pr->args == hysmi_q;
            if (is_query) {
                json_object_set_new(j, "output", lines_json(out, 16));
                json_object_set_new(j, "works", json_boolean(st == 0));
            } else {
                char *v = version_line(out);
                if (v)
                    json_object_set_new(j, "version", json_string(v));
                hk_free(v);
            }
            json_object_set_new(j, "exit_code", json_integer(st));
        }
        hk_free(out);
        hk_free(argv);
    }
    hk_free(path);
    return j;
}

static json_t *probe_device(const struct probe *pr)
{
    json_t *j = json_object();
    json_t *found = json_array();
    glob_t g;
    if (glob(pr->device_glob, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            json_array_append_new(found, json_string(g.gl_pathv[i]));
        globfree(&g);
    }
    json_object_set_new(j, "found", json_boolean(json_array_size(found) > 0));
    json_object_set_new(j, "paths", found);
    return j;
}

/* The sandbox candidate programs get here, from the runner's own probe (which builds each
 * sandbox once around `true`): the bwrap line only says whether the tool is installed.
 * New reference. */
static json_t *isolation_json(void)
{
    static const enum runner_isolation levels[] = {RUNNER_ISO_BWRAP, RUNNER_ISO_NAMESPACES,
                                                   RUNNER_ISO_UNSHARE_NET, RUNNER_ISO_NONE};
    enum runner_isolation use = runner_isolation_available();
    json_t *j = json_object();
    json_object_set_new(j, "uses", json_string(runner_isolation_key(use)));
    json_object_set_new(j, "words", json_string(runner_isolation_name(use)));
    json_object_set_new(j, "works", json_boolean(runner_isolation_works(use)));
    const char *forced = getenv("HK_RUNNER_ISOLATION");
    if (forced && *forced)
        json_object_set_new(j, "forced_by", json_string(forced));
    json_t *lv = json_object();
    for (size_t i = 0; i < HK_ARRAY_LEN(levels); i++)
        json_object_set_new(lv, runner_isolation_key(levels[i]),
                            json_boolean(runner_isolation_works(levels[i])));
    json_object_set_new(j, "levels", lv);
    return j;
}

static void print_isolation(json_t *iso)
{
    bool works = json_is_true(json_object_get(iso, "works"));
    const char *forced = json_string_value(json_object_get(iso, "forced_by"));
    printf("  %-9s %-13s %s\n", works ? "[ok]" : "[missing]", "sandbox",
           json_string_value(json_object_get(iso, "words")));
    if (!works) {
        printf("  %-9s %-13s ", "", "");
        printf(hk_tr(HK_MSG_DOC_SANDBOX_FAILS), forced ? forced : "");
        printf("\n");
    } else if (forced) {
        printf("  %-9s %-13s ", "", "");
        printf(hk_tr(HK_MSG_DOC_SANDBOX_FORCED), forced);
        printf("\n");
    }
    printf("  %-9s %-13s %s", "", "", hk_tr(HK_MSG_DOC_WORKS_HERE));
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(iso, "levels"), key, v)
        printf(" %s %s;", key, hk_tr(json_is_true(v) ? HK_MSG_DOC_YES : HK_MSG_DOC_NO));
    printf("\n");
}

static void print_item(json_t *it)
{
    bool found = json_is_true(json_object_get(it, "found"));
    const char *name = json_string_value(json_object_get(it, "name"));
    printf("  %-9s %-13s", found ? "[ok]" : "[missing]", name);
    if (!found) {
        printf(" %s\n", cost_text(name));
        return;
    }
    json_t *paths = json_object_get(it, "paths");
    if (paths) {
        size_t i;
        json_t *p;
        json_array_foreach(paths, i, p)
            printf("%s%s", i ? " " : " ", json_string_value(p));
        printf("\n");
        return;
    }
    printf(" %s", json_string_value(json_object_get(it, "path")));
    const char *v = json_string_value(json_object_get(it, "version"));
    if (v)
        printf("  (%s)", v);
    json_t *outl = json_object_get(it, "output");
    if (outl) {
        if (!json_is_true(json_object_get(it, "works")))
            printf(hk_tr(HK_MSG_DOC_QUERY_FAILED),
                   json_array_size(outl) ? json_string_value(json_array_get(outl, 0))
                                         : hk_tr(HK_MSG_DOC_NO_OUTPUT));
        printf("\n");
        size_t i;
        json_t *l;
        if (json_is_true(json_object_get(it, "works")))
            json_array_foreach(outl, i, l)
                printf("              %s\n", json_string_value(l));
        return;
    }
    printf("\n");
}

/* Where this hkls takes its own files from: the executable, the harness header, the
 * skills, the CUPTI library. An installed hkls names its prefix here (share/hyperkernel);
 * one run from a build tree names the sources it was built from. New reference. */
static json_t *install_json(void)
{
    json_t *j = json_object();
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    json_object_set_new(j, "hkls", json_string(exe));
    char *hdr = hk_asprintf("%s/hk_harness.h", harness_include_dir());
    json_object_set_new(j, "harness_header", hdr ? json_string(hdr) : json_null());
    json_object_set_new(j, "harness_header_found", json_boolean(hdr && access(hdr, R_OK) == 0));
    hk_free(hdr);
    char *sk = NULL;
    if (sk_default_dir(&sk) == HK_OK) {
        struct stat st;
        json_object_set_new(j, "skills", json_string(sk));
        json_object_set_new(j, "skills_found",
                            json_boolean(stat(sk, &st) == 0 && S_ISDIR(st.st_mode)));
    }
    hk_free(sk);
    char *lib = NULL;
    json_object_set_new(j, "cupti_library",
                        cmdform_cupti_find(&lib) == HK_OK ? json_string(lib) : json_null());
    hk_free(lib);
    return j;
}

static void print_install(const json_t *in)
{
    const char *hdr = json_string_value(json_object_get(in, "harness_header"));
    const char *sk = json_string_value(json_object_get(in, "skills"));
    const char *lib = json_string_value(json_object_get(in, "cupti_library"));
    printf("\n%s\n", hk_tr(HK_MSG_DOC_THIS_HKLS));
    printf("  %-9s %-13s %s\n", "[ok]", "hkls", json_string_value(json_object_get(in, "hkls")));
    bool h = json_is_true(json_object_get(in, "harness_header_found"));
    printf("  %-9s %-13s %s%s\n", h ? "[ok]" : "[missing]", "harness", hdr ? hdr : "?",
           h ? "" : hk_tr(HK_MSG_DOC_HARNESS_MISSING));
    bool s = json_is_true(json_object_get(in, "skills_found"));
    printf("  %-9s %-13s %s%s\n", s ? "[ok]" : "[missing]", "skills", sk ? sk : "?",
           s ? "" : hk_tr(HK_MSG_DOC_SKILLS_MISSING));
    printf("  %-9s %-13s %s\n", lib ? "[ok]" : "[missing]", "cupti library",
           lib ? lib : hk_tr(HK_MSG_DOC_CUPTI_MISSING));
}

int cli_doctor(int argc, char **argv)
{
    bool as_json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            as_json = true;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("%s", hk_tr(HK_MSG_CLI_DOCTOR_USAGE));
            return 0;
        } else {
            fprintf(stderr, hk_tr(HK_MSG_CLI_DOCTOR_UNKNOWN_ARG), argv[i]);
            return 2;
        }
    }
    hk_alloc_init_json();
    json_t *root = json_object();
    json_t *items = json_array();
    size_t n_missing = 0;
    for (size_t i = 0; i < HK_ARRAY_LEN(probes); i++) {
        const struct probe *pr = &probes[i];
        json_t *it = pr->kind == PROBE_TOOL ? probe_tool(pr) : probe_device(pr);
        if (!it)
            continue;
        json_object_set_new(it, "category", json_string(pr->category));
        json_object_set_new(it, "name", json_string(pr->name));
        bool found = json_is_true(json_object_get(it, "found"));
        /* A GPU query tool that runs but fails (no driver, no device) counts as missing. */
        json_t *works = json_object_get(it, "works");
        if (found && works && !json_is_true(works))
            found = false;
        if (!found) {
            /* the JSON is language-neutral: the English sentence */
            json_object_set_new(it, "cost", json_string(hk_tr_in(HK_LANG_EN, pr->cost)));
            n_missing++;
        }
        json_array_append_new(items, it);
    }
    json_object_set_new(root, "version", json_string(HK_VERSION));
    json_object_set_new(root, "items", items);
    json_object_set_new(root, "missing", json_integer((json_int_t)n_missing));
    size_t n_arch;
    const cc_arch_limits *archs = cc_arch_table(&n_arch);
    json_t *aj = json_array();
    for (size_t i = 0; i < n_arch; i++)
        json_array_append_new(aj, json_string(archs[i].arch));
    json_object_set_new(root, "occupancy_archs", aj);
    json_t *iso = isolation_json();
    json_object_set_new(root, "isolation", iso);
    json_t *inst = install_json();
    json_object_set_new(root, "install", inst);

    if (as_json) {
        char *s = json_dumps(root, JSON_INDENT(2));
        if (s)
            printf("%s\n", s);
        hk_free(s);
    } else {
        printf("hkls doctor (hkls %s)\n", HK_VERSION); /* i18n: not for people (names: the command and its version) */
        for (size_t c = 0; c < HK_ARRAY_LEN(categories); c++) {
            printf("\n%s\n", hk_tr(category_titles[c]));
            size_t i;
            json_t *it;
            json_array_foreach(items, i, it) {
                if (strcmp(json_string_value(json_object_get(it, "category")), categories[c]))
                    continue;
                /* A query tool that fails is shown with its reason and its cost. */
                if (json_object_get(it, "cost") && json_is_true(json_object_get(it, "found"))) {
                    print_item(it);
                    printf("  %-9s %-13s %s\n", "", "",
                           cost_text(json_string_value(json_object_get(it, "name"))));
                    continue;
                }
                print_item(it);
            }
            if (!strcmp(categories[c], "isolation"))
                print_isolation(iso);
        }
        print_install(inst);
        printf("\n%s", hk_tr(HK_MSG_DOC_OCCUPANCY_TABLES));
        for (size_t i = 0; i < n_arch; i++)
            printf("%s%s", i ? ", " : "", archs[i].arch);
        printf("\n");
        printf(hk_tr(HK_MSG_DOC_MISSING_COUNT), (long long)n_missing,
               (long long)HK_ARRAY_LEN(probes));
        printf("\n");
    }
    fflush(stdout);
    json_decref(root);
    return 0;
}
