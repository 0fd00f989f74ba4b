/* Local runner: (v)fork/exec with limits, a sandbox when one exists, capped output capture,
 * and a pool that multiplexes several children over one poll() loop. Each child leads its
 * own session, so a timeout or cancel kills the whole process group, grandchildren too;
 * a memory cgroup (when writable) both limits memory and catches escaped descendants. */
#include "runners/runner.h"
#include "runners/runner_ns.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "core/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define RUNNER_DEFAULT_OUTPUT_MAX (1u << 20)
#define RUNNER_DEFAULT_GRACE_MS 500
/* After the main child ends and its group is killed, output still in flight is read for
 * at most this long (a descendant that escaped the group may hold a pipe open). */
#define RUNNER_DRAIN_MS 300
#define RUNNER_MAX_ARGS 4096
/* Process cap of a namespace-sandboxed job: far above what a compiler or a benchmark
 * starts, far below what makes a fork bomb hurt the machine. */
#define RUNNER_DEFAULT_NPROC 256

/* ------------------------------------------------------------------ time, strings */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t strv_len(const char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

static void strv_free(char **v)
{
    if (!v)
        return;
    for (size_t i = 0; v[i]; i++)
        hk_free(v[i]);
    hk_free(v);
}

/* New deep copy of a NULL-terminated vector (NULL stays NULL). HK_OK / HK_ENOMEM / HK_ETOOBIG. */
static int strv_dup(const char *const *v, char ***out)
{
    *out = NULL;
    if (!v)
        return HK_OK;
    size_t n = strv_len(v);
    if (n > RUNNER_MAX_ARGS)
        return HK_ETOOBIG;
    char **c = hk_calloc(n + 1, sizeof *c);
    if (!c)
        return HK_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!(c[i] = hk_strdup(v[i]))) {
            strv_free(c);
            return HK_ENOMEM;
        }
    }
    *out = c;
    return HK_OK;
}

/* Appends a copy of s to a vector with room (caller sized it). */
static int strv_push(char **v, size_t *n, const char *s)
{
    if (!(v[*n] = hk_strdup(s)))
        return HK_ENOMEM;
    (*n)++;
    v[*n] = NULL;
    return HK_OK;
}

/* Reads a small file into buf (NUL-terminated). Returns bytes read or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    while (len + 1 < size) {
        ssize_t n = read(fd, buf + len, size - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    return (ssize_t)len;
}

static int write_small(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(s);
    ssize_t n = write(fd, s, len);
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)len ? 0 : -1;
}

/* Finds an executable on PATH; writes the full path into out. */
static bool find_in_path(const char *name, char *out, size_t size)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) != 0)
            return false;
        snprintf(out, size, "%s", name);
        return true;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        if (len > 0 && len < size) {
            int n = snprintf(out, size, "%.*s/%s", (int)len, path, name);
            if (n > 0 && (size_t)n < size && access(out, X_OK) == 0)
                return true;
        }
        path += len;
        if (*path == ':')
            path++;
    }
    return false;
}

/* ------------------------------------------------------------------ memory cgroups */

static struct {
    bool probed;
    enum runner_memory_method method;  /* CGROUP2, CGROUP1 or NONE */
    char base[PATH_MAX];               /* directory under which job cgroups are made */
} cg_probe;

/* The cgroup path of this process for a hierarchy: v2 ("0::/p") when controller is NULL,
 * else the v1 line whose controller list contains it. */
static bool own_cgroup_path(const char *controller, char *out, size_t size)
{
    char buf[8192];
    if (read_small("/proc/self/cgroup", buf, sizeof buf) <= 0)
        return false;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        const char *ctrls = c1 + 1;
        bool match;
        if (!controller) {
            match = strcmp(line, "0") == 0 && *ctrls == '\0';
        } else {
            match = false;
            char list[256];
            snprintf(list, sizeof list, "%s", ctrls);
            for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
                if (strcmp(t, controller) == 0)
                    match = true;
        }
        if (match) {
            snprintf(out, size, "%s", c2 + 1);
            return true;
        }
    }
    return false;
}

/* Mount point and root of the cgroup2 hierarchy (controller NULL) or of the v1 hierarchy
 * carrying controller. */
static bool cgroup_mount(const char *controller, char *mnt, size_t mnt_size, char *root,
                         size_t root_size)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        /* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
        char *fields[64];
        int n = 0;
        for (char *save = NULL, *t = strtok_r(line, " \n", &save); t && n < 64;
             t = strtok_r(NULL, " \n", &save))
            fields[n++] = t;
        int dash = -1;
        for (int i = 6; i < n; i++)
            if (strcmp(fields[i], "-") == 0) {
                dash = i;
                break;
            }
        if (dash < 0 || dash + 3 >= n + 1 || dash + 1 >= n)
            continue;
        const char *fstype = fields[dash + 1];
        const char *super = dash + 3 < n ? fields[dash + 3] : "";
        if (!controller) {
            if (strcmp(fstype, "cgroup2") != 0)
                continue;
        } else {
            if (strcmp(fstype, "cgroup") != 0)
                continue;
            bool has = false;
            char opts[512];
            snprintf(opts, sizeof opts, "%s", super);
            for (char *save = NULL, *t = strtok_r(opts, ",", &save); t; t = strtok_r(NULL, ",", &save))
                if (strcmp(t, controller) == 0)
                    has = true;
            if (!has)
                continue;
        }
        snprintf(root, root_size, "%s", fields[3]);
        snprintf(mnt, mnt_size, "%s", fields[4]);
        found = true;
    }
    fclose(f);
    return found;
}

/* Directory of this process's own cgroup in a hierarchy (mount + path below its root). */
static bool cgroup_own_dir(const char *controller, char *out, size_t size)
{
    char mnt[PATH_MAX], root[PATH_MAX], path[PATH_MAX];
    if (!cgroup_mount(controller, mnt, sizeof mnt, root, sizeof root))
        return false;
    if (!own_cgroup_path(controller, path, sizeof path))
        return false;
    const char *rel = path;
    size_t rl = strlen(root);
    if (strcmp(root, "/") != 0 && strncmp(path, root, rl) == 0)
        rel = path + rl;
    int n = snprintf(out, size, "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel);
    if (n < 0 || (size_t)n >= size)
        return false;
    struct stat st;
    return stat(out, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool word_in(const char *list, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += wl) {
        bool start = p == list || p[-1] == ' ' || p[-1] == '\n';
        bool end = p[wl] == '\0' || p[wl] == ' ' || p[wl] == '\n';
        if (start && end)
            return true;
    }
    return false;
}

/* Can a child cgroup be made under dir with a memory limit file named limit_file? */
static bool cgroup_try_child(const char *dir, const char *limit_file)
{
    char probe[PATH_MAX], file[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/hk-probe-%ld", dir, (long)getpid());
    if (mkdir(probe, 0755) != 0 && errno != EEXIST)
        return false;
    snprintf(file, sizeof file, "%s/%s", probe, limit_file);
    bool ok = access(file, W_OK) == 0;
    rmdir(probe);
    return ok;
}

static void cgroup_probe(void)
{
    if (cg_probe.probed)
        return;
    cg_probe.probed = true;
    cg_probe.method = RUNNER_MEM_NONE;
    char dir[PATH_MAX], buf[1024];
    /* v2: the memory controller must be enabled for our children; writing +memory can
     * fail (no delegation, or processes in our cgroup): then v2 is not usable here. */
    if (cgroup_own_dir(NULL, dir, sizeof dir)) {
        char file[PATH_MAX + 32];
        snprintf(file, sizeof file, "%s/cgroup.controllers", dir);
        if (read_small(file, buf, sizeof buf) > 0 && word_in(buf, "memory")) {
            snprintf(file, sizeof file, "%s/cgroup.subtree_control", dir);
            if (read_small(file, buf, sizeof buf) >= 0 && !word_in(buf, "memory"))
                (void)write_small(file, "+memory");
            if (read_small(file, buf, sizeof buf) >= 0 && word_in(buf, "memory") &&
                cgroup_try_child(dir, "memory.max")) {
                cg_probe.method = RUNNER_MEM_CGROUP2;
                snprintf(cg_probe.base, sizeof cg_probe.base, "%s", dir);
                return;
            }
        }
    }
    if (cgroup_own_dir("memory", dir, sizeof dir) && cgroup_try_child(dir, "memory.limit_in_bytes")) {
        cg_probe.method = RUNNER_MEM_CGROUP1;
        snprintf(cg_probe.base, sizeof cg_probe.base, "%s", dir);
    }
}

/* The memory limit's words are recorded (the episode's "memory_limit" fact, a job's
 * result): English, said again where shown (docs/i18n.md, "Stored in English"). */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

static const char *memory_words(enum runner_memory_method m)
{
    switch (m) {
    case RUNNER_MEM_CGROUP2: return EN(RUNMEM_CGROUP2);
    case RUNNER_MEM_CGROUP1: return EN(RUNMEM_CGROUP1);
    case RUNNER_MEM_RLIMIT_AS: return EN(RUNMEM_RLIMIT_AS);
    case RUNNER_MEM_NONE: break;
    }
    return "none";
}

enum runner_memory_method runner_memory_available(bool gpu, const char **words)
{
    cgroup_probe();
    enum runner_memory_method m = cg_probe.method;
    const char *w = memory_words(m);
    if (m == RUNNER_MEM_NONE) {
        if (!gpu) {
            m = RUNNER_MEM_RLIMIT_AS;
            w = EN(RUNMEM_RLIMIT_NO_CGROUP);
        } else {
            w = EN(RUNMEM_NONE_GPU);
        }
    }
    if (words)
        *words = w;
    return m;
}

/* ------------------------------------------------------------------ isolation probe */

static struct {
    bool probed;
    enum runner_isolation best;
    enum runner_isolation forced;   /* HK_RUNNER_ISOLATION; AUTO when not set */
    char bwrap[PATH_MAX];
    bool bwrap_ok;              /* the bwrap trial run succeeded */
    bool ns_ok;                 /* the namespace sandbox trial run succeeded */
    bool ns_userns;             /* ... with a user namespace (not root, or root refused) */
    bool ns_probing;            /* the trial itself is running: no work directory to bind */
    bool unshare_ok;            /* a network namespace can be entered */
    bool unshare_needs_userns;  /* CLONE_NEWNET alone refused, works inside a user ns */
} iso_probe;

const char *runner_isolation_name(enum runner_isolation iso)
{
    /* English whatever the language: stored with an episode and printed by hkls doctor as
     * it is; a face says it again from the table (hk_tr_said) */
    switch (iso) {
    case RUNNER_ISO_BWRAP:
        return hk_tr_in(HK_LANG_EN, HK_MSG_EP_ISO_BWRAP);
    case RUNNER_ISO_NAMESPACES:
        return hk_tr_in(HK_LANG_EN, HK_MSG_EP_ISO_NAMESPACES);
    case RUNNER_ISO_UNSHARE_NET:
        return hk_tr_in(HK_LANG_EN, HK_MSG_EP_ISO_UNSHARE_NET);
    case RUNNER_ISO_NONE:
        return hk_tr_in(HK_LANG_EN, HK_MSG_EP_ISO_NONE);
    case RUNNER_ISO_AUTO:
        break;
    }
    return "auto";
}

/* Child side of entering a network namespace, possibly through a user namespace whose
 * only mapping is our own ids. Async-signal-safe: uid/gid lines are preformatted. */
static int enter_netns(bool userns, const char *uid_map, const char *gid_map)
{
    if (!userns)
        return unshare(CLONE_NEWNET);
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
        return -1;
    (void)write_small("/proc/self/setgroups", "deny");
    if (write_small("/proc/self/uid_map", uid_map) != 0)
        return -1;
    return write_small("/proc/self/gid_map", gid_map);
}

static void id_maps(char *uid_map, char *gid_map, size_t size)
{
    snprintf(uid_map, size, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
    snprintf(gid_map, size, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
}

static bool try_unshare(bool userns)
{
    char um[64], gm[64];
    id_maps(um, gm, sizeof um);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0)
        _exit(enter_netns(userns, um, gm) == 0 ? 0 : 1);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Builds the namespace sandbox for real around `true`, with or without a user namespace:
 * kernels differ in what they allow (user namespaces off, no mount_setattr, a container
 * root without CAP_SYS_ADMIN), and only a trial tells. */
static bool try_ns_sandbox(bool userns)
{
    iso_probe.ns_ok = true;   /* lets the trial job through job_start */
    iso_probe.ns_userns = userns;
    iso_probe.ns_probing = true;
    /* an absolute path where there is one: the answer must not depend on the caller's PATH */
    const char *prog = access("/usr/bin/true", X_OK) == 0 ? "/usr/bin/true"
                       : access("/bin/true", X_OK) == 0 ? "/bin/true"
                                                         : "true";
    const char *argv[] = {prog, NULL};
    runner_spec s = {.argv = argv, .timeout_ms = 10000, .isolation = RUNNER_ISO_NAMESPACES};
    runner_result r;
    int rc = runner_run(&s, &r);
    bool ok = rc == HK_OK && r.exit_code == 0;
    if (!ok)
        HK_INFO("runner: the namespace sandbox (%s user namespace) does not work here: %s, exit %d",
                userns ? "with a" : "without a", hk_strerror(rc), r.exit_code);
    runner_result_free(&r);
    iso_probe.ns_probing = false;
    iso_probe.ns_ok = ok;
    return ok;
}

static const struct {
    const char *name;
    enum runner_isolation iso;
} forced_names[] = {{"bwrap", RUNNER_ISO_BWRAP}, {"namespaces", RUNNER_ISO_NAMESPACES},
                    {"net", RUNNER_ISO_UNSHARE_NET}, {"none", RUNNER_ISO_NONE}};

const char *runner_isolation_key(enum runner_isolation iso)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(forced_names); i++)
        if (forced_names[i].iso == iso)
            return forced_names[i].name;
    return "auto";
}

static void isolation_probe(void)
{
    if (iso_probe.probed)
        return;
    iso_probe.probed = true;
    iso_probe.best = RUNNER_ISO_NONE;
    iso_probe.forced = RUNNER_ISO_AUTO;
    const char *force = getenv("HK_RUNNER_ISOLATION");
    if (force && *force) {
        for (size_t i = 0; i < HK_ARRAY_LEN(forced_names); i++)
            if (strcmp(force, forced_names[i].name) == 0)
                iso_probe.forced = forced_names[i].iso;
        if (iso_probe.forced == RUNNER_ISO_AUTO)
            HK_WARN("runner: HK_RUNNER_ISOLATION=%.40s is not bwrap, namespaces, net or none: "
                    "ignored", force);
    }
    if (find_in_path("bwrap", iso_probe.bwrap, sizeof iso_probe.bwrap)) {
        /* bwrap may be installed and still refused (no user namespaces in a container) */
        const char *argv[] = {iso_probe.bwrap, "--unshare-all", "--die-with-parent", "--ro-bind",
                              "/", "/", "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev",
                              "true", NULL};
        runner_spec s = {.argv = argv, .timeout_ms = 10000, .isolation = RUNNER_ISO_NONE};
        runner_result r;
        if (runner_run(&s, &r) == HK_OK && r.exit_code == 0)
            iso_probe.bwrap_ok = true;
        else
            HK_INFO("runner: bwrap at %s does not work here (exit %d): %.200s", iso_probe.bwrap,
                    r.exit_code, r.err ? r.err : "");
        runner_result_free(&r);
    }
    /* probed even when bwrap works, so a job may still ask for them by name */
    if (!(geteuid() == 0 && try_ns_sandbox(false)))
        (void)try_ns_sandbox(true);
    enum runner_isolation net = RUNNER_ISO_NONE;
    if (try_unshare(false)) {
        net = RUNNER_ISO_UNSHARE_NET;
    } else if (try_unshare(true)) {
        net = RUNNER_ISO_UNSHARE_NET;
        iso_probe.unshare_needs_userns = true;
    }
    iso_probe.unshare_ok = net == RUNNER_ISO_UNSHARE_NET;
    iso_probe.best = iso_probe.bwrap_ok ? RUNNER_ISO_BWRAP
                     : iso_probe.ns_ok  ? RUNNER_ISO_NAMESPACES
                                        : net;
}

enum runner_isolation runner_isolation_available(void)
{
    isolation_probe();
    return iso_probe.forced != RUNNER_ISO_AUTO ? iso_probe.forced : iso_probe.best;
}

bool runner_isolation_works(enum runner_isolation iso)
{
    isolation_probe();
    switch (iso) {
    case RUNNER_ISO_AUTO:
        return runner_isolation_works(runner_isolation_available());
    case RUNNER_ISO_NONE:
        return true;
    case RUNNER_ISO_UNSHARE_NET:
        return iso_probe.unshare_ok;
    case RUNNER_ISO_NAMESPACES:
        return iso_probe.ns_ok;
    case RUNNER_ISO_BWRAP:
        return iso_probe.bwrap_ok;
    }
    return false;
}

/* ------------------------------------------------------------------ jobs */

typedef struct runner_job {
    /* the deep-copied spec */
    char **argv, **env, **env_set, **writable, **readable, **hidden;
    char *cwd;
    int keep_fds[RUNNER_KEEP_FDS_MAX];
    runner_spec spec;   /* scalar fields; pointer fields point at the copies above */
    void *tag;
    struct runner_job *next;

    /* prepared before fork */
    char **exec_argv;   /* argv, or bwrap + its options + argv */
    runner_ns_plan *ns_plan;   /* RUNNER_ISO_NAMESPACES: the sandbox to enter after fork */
    char **envp;        /* pointers into env/environ/env_set (not owned individually) */
    enum runner_isolation iso;
    enum runner_memory_method mem;
    const char *mem_words;
    char cgroup[PATH_MAX];   /* job cgroup directory, "" when none */
    char uid_map[64], gid_map[64];

    /* running */
    pid_t pid;
    int pidfd;
    int out_fd, err_fd;
    struct hk_buf out, err;
    bool out_trunc, err_trunc;
    int64_t start_ms, deadline_ms, kill_at_ms, drain_until_ms;
    bool timed_out, exited;
    int status;
    struct rusage ru;
    int64_t end_ms;
    int error;
} runner_job;

struct runner_pool {
    unsigned max_parallel;
    runner_job *queue_head, *queue_tail;
    runner_job **running;
    size_t n_running;
};

static unsigned long cgroup_seq;

static void job_free(runner_job *j)
{
    if (!j)
        return;
    strv_free(j->argv);
    strv_free(j->env);
    strv_free(j->env_set);
    strv_free(j->writable);
    strv_free(j->readable);
    strv_free(j->hidden);
    strv_free(j->exec_argv);
    runner_ns_plan_free(j->ns_plan);
    hk_free(j->envp);
    hk_free(j->cwd);
    hk_buf_free(&j->out);
    hk_buf_free(&j->err);
    hk_free(j);
}

static int job_new(const runner_spec *spec, void *tag, runner_job **out)
{
    *out = NULL;
    if (!spec || !spec->argv || !spec->argv[0] || !*spec->argv[0] ||
        spec->n_keep_fds > RUNNER_KEEP_FDS_MAX || (spec->n_keep_fds && !spec->keep_fds))
        return HK_EINVAL;
    for (size_t i = 0; i < spec->n_keep_fds; i++)
        if (spec->keep_fds[i] <= 2)
            return HK_EINVAL;
    runner_job *j = hk_calloc(1, sizeof *j);
    if (!j)
        return HK_ENOMEM;
    j->spec = *spec;
    j->tag = tag;
    j->pid = -1;
    j->pidfd = j->out_fd = j->err_fd = -1;
    size_t max = spec->output_max ? spec->output_max : RUNNER_DEFAULT_OUTPUT_MAX;
    hk_buf_init(&j->out, max);
    hk_buf_init(&j->err, max);
    int rc;
    if ((rc = strv_dup(spec->argv, &j->argv)) || (rc = strv_dup(spec->env, &j->env)) ||
        (rc = strv_dup(spec->env_set, &j->env_set)) || (rc = strv_dup(spec->writable, &j->writable)) ||
        (rc = strv_dup(spec->readable, &j->readable)) || (rc = strv_dup(spec->hidden, &j->hidden)))
        goto fail;
    if (spec->cwd && !(j->cwd = hk_strdup(spec->cwd))) {
        rc = HK_ENOMEM;
        goto fail;
    }
    j->spec.argv = (const char *const *)j->argv;
    j->spec.env = (const char *const *)j->env;
    j->spec.env_set = (const char *const *)j->env_set;
    j->spec.writable = (const char *const *)j->writable;
    j->spec.readable = (const char *const *)j->readable;
    j->spec.hidden = (const char *const *)j->hidden;
    j->spec.cwd = j->cwd;
    for (size_t i = 0; i < spec->n_keep_fds; i++)
        j->keep_fds[i] = spec->keep_fds[i];
    j->spec.keep_fds = spec->n_keep_fds ? j->keep_fds : NULL;
    *out = j;
    return HK_OK;
fail:
    job_free(j);
    return rc;
}

/* Environment for the child: base (spec env or environ) with env_set applied. */
static int job_build_env(runner_job *j)
{
    char **base = j->env ? j->env : environ;
    if (!j->env_set)
        return HK_OK;   /* execvpe gets base directly */
    size_t nb = strv_len((const char *const *)base), ns = strv_len((const char *const *)j->env_set);
    char **e = hk_calloc(nb + ns + 1, sizeof *e);
    if (!e)
        return HK_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < nb; i++) {
        const char *eq = strchr(base[i], '=');
        size_t kl = eq ? (size_t)(eq - base[i]) : strlen(base[i]);
        bool overridden = false;
        for (size_t k = 0; k < ns; k++)
            if (strncmp(j->env_set[k], base[i], kl) == 0 && j->env_set[k][kl] == '=')
                overridden = true;
        if (!overridden)
            e[n++] = base[i];
    }
    for (size_t k = 0; k < ns; k++) {
        if (!strchr(j->env_set[k], '=')) {
            hk_free(e);
            return HK_EINVAL;
        }
        e[n++] = j->env_set[k];
    }
    e[n] = NULL;
    j->envp = e;
    return HK_OK;
}

/* The real path of an existing directory in buf, or NULL. bwrap builds its mounts before
 * it enters the new root, so a bind through a symlink with an absolute target fails
 * ("Can't mkdir ...": a cache folder under a linked build folder, found in session 25's
 * CI) or, where the link lies under the private /tmp, mounts at a path nothing else
 * uses: every bind is made at the real path, as the namespace sandbox does
 * (runner_ns.c canonical_dir). A program may still name the folder through the link,
 * which the read-only root keeps where it lies outside /tmp. */
static const char *real_dir(const char *p, char buf[PATH_MAX])
{
    struct stat st;
    if (!p || !realpath(p, buf) || stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    return buf;
}

/* bwrap + options + "--" + argv. GPU device nodes are bound into the fresh /dev so the
 * driver still works; nothing else of the host /dev is visible. */
static int job_build_bwrap(runner_job *j)
{
    const char *gpu_devs[64];
    size_t n_dev = 0;
    static char dev_names[64][272];
    if (j->spec.gpu) {
        DIR *d = opendir("/dev");
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL && n_dev < 60) {
            if (strncmp(de->d_name, "nvidia", 6) != 0 || strlen(de->d_name) > 200)
                continue;
            int l = snprintf(dev_names[n_dev], sizeof dev_names[n_dev], "/dev/%s", de->d_name);
            if (l < 0 || (size_t)l >= sizeof dev_names[n_dev])
                continue;
            gpu_devs[n_dev] = dev_names[n_dev];
            n_dev++;
        }
        if (d)
            closedir(d);
        if (access("/dev/kfd", F_OK) == 0)
            gpu_devs[n_dev++] = "/dev/kfd";
        if (access("/dev/dri", F_OK) == 0)
            gpu_devs[n_dev++] = "/dev/dri";
    }
    char cwd_buf[PATH_MAX];
    const char *cwd = j->cwd;
    if (!cwd) {
        if (!getcwd(cwd_buf, sizeof cwd_buf))
            return HK_EIO;
        cwd = cwd_buf;
    }
    size_t n_w = strv_len((const char *const *)j->writable);
    size_t n_r = strv_len((const char *const *)j->readable);
    size_t n_h = strv_len((const char *const *)j->hidden);
    size_t cap = 16 + 3 * n_dev + 3 * (n_w + 1) + 3 * n_r + 4 * n_h + 2 +
                 strv_len((const char *const *)j->argv) + 1;
    char **v = hk_calloc(cap, sizeof *v);
    if (!v)
        return HK_ENOMEM;
    size_t n = 0;
    int rc = HK_OK;
    const char *fixed[] = {iso_probe.bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/",
                           "/", "--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev"};
    for (size_t i = 0; i < HK_ARRAY_LEN(fixed) && !rc; i++)
        rc = strv_push(v, &n, fixed[i]);
    for (size_t i = 0; i < n_dev && !rc; i++)
        if (!(rc = strv_push(v, &n, "--dev-bind")) && !(rc = strv_push(v, &n, gpu_devs[i])))
            rc = strv_push(v, &n, gpu_devs[i]);
    /* read-only binds first, so a writable directory inside one stays writable */
    char real[PATH_MAX];
    const char *d;
    for (size_t i = 0; i < n_r && !rc; i++) {
        if (!(d = real_dir(j->readable[i], real)))
            continue;
        if (!(rc = strv_push(v, &n, "--ro-bind")) && !(rc = strv_push(v, &n, d)))
            rc = strv_push(v, &n, d);
    }
    for (size_t i = 0; i <= n_w && !rc; i++) {
        if (!(d = real_dir(i < n_w ? j->writable[i] : cwd, real)))
            continue;
        if (!(rc = strv_push(v, &n, "--bind")) && !(rc = strv_push(v, &n, d)))
            rc = strv_push(v, &n, d);
    }
    /* hidden last, so a hidden directory inside the work directory stays hidden */
    for (size_t i = 0; i < n_h && !rc; i++) {
        if (!(d = real_dir(j->hidden[i], real)))
            continue;
        if (!(rc = strv_push(v, &n, "--tmpfs")) && !(rc = strv_push(v, &n, d)) &&
            !(rc = strv_push(v, &n, "--remount-ro")))
            rc = strv_push(v, &n, d);
    }
    /* the real work directory too: a link to it under /tmp is not in the sandbox */
    if (!(d = real_dir(cwd, real)))
        d = cwd;
    if (!rc && !(rc = strv_push(v, &n, "--chdir")) && !(rc = strv_push(v, &n, d)))
        rc = strv_push(v, &n, "--");
    for (size_t i = 0; j->argv[i] && !rc; i++)
        rc = strv_push(v, &n, j->argv[i]);
    if (rc) {
        strv_free(v);
        return rc;
    }
    j->exec_argv = v;
    return HK_OK;
}

/* The namespace sandbox's plan: the work directory (the caller's when cwd is NULL, none
 * for the probe's trial) and the spec's extra directories. */
static int job_build_ns(runner_job *j)
{
    char cwd_buf[PATH_MAX];
    const char *cwd = j->cwd;
    if (!cwd && !iso_probe.ns_probing) {
        if (!getcwd(cwd_buf, sizeof cwd_buf))
            return HK_EIO;
        cwd = cwd_buf;
    }
    runner_ns_options o = {
        .cwd = iso_probe.ns_probing ? NULL : cwd,
        .writable = (const char *const *)j->writable,
        .readable = (const char *const *)j->readable,
        .hidden = (const char *const *)j->hidden,
        .gpu = j->spec.gpu,
        .userns = iso_probe.ns_userns,
        .max_processes = j->spec.max_processes ? j->spec.max_processes : RUNNER_DEFAULT_NPROC,
    };
    return runner_ns_plan_new(&o, &j->ns_plan);
}

static int job_setup_cgroup(runner_job *j)
{
    char file[PATH_MAX + 64], val[64];
    int l = snprintf(j->cgroup, sizeof j->cgroup, "%s/hk-runner-%ld-%lu", cg_probe.base,
                     (long)getpid(), ++cgroup_seq);
    if (l < 0 || (size_t)l >= sizeof j->cgroup || mkdir(j->cgroup, 0755) != 0) {
        j->cgroup[0] = '\0';
        return HK_EIO;
    }
    snprintf(val, sizeof val, "%llu", (unsigned long long)j->spec.memory_max);
    snprintf(file, sizeof file, "%s/%s", j->cgroup,
             j->mem == RUNNER_MEM_CGROUP2 ? "memory.max" : "memory.limit_in_bytes");
    if (write_small(file, val) != 0) {
        rmdir(j->cgroup);
        j->cgroup[0] = '\0';
        return HK_EIO;
    }
    /* no swapping around the limit, where the kernel offers the knob */
    snprintf(file, sizeof file, "%s/%s", j->cgroup,
             j->mem == RUNNER_MEM_CGROUP2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes");
    (void)write_small(file, j->mem == RUNNER_MEM_CGROUP2 ? "0" : val);
    return HK_OK;
}

/* Kills every process left in the job's cgroup (descendants that left the group). */
static void job_kill_cgroup(runner_job *j)
{
    if (!j->cgroup[0])
        return;
    char file[PATH_MAX + 32], buf[16384];
    snprintf(file, sizeof file, "%s/cgroup.kill", j->cgroup);
    if (j->mem == RUNNER_MEM_CGROUP2 && write_small(file, "1") == 0)
        return;
    snprintf(file, sizeof file, "%s/cgroup.procs", j->cgroup);
    if (read_small(file, buf, sizeof buf) <= 0)
        return;
    for (char *save = NULL, *t = strtok_r(buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
        long pid = strtol(t, NULL, 10);
        if (pid > 1 && pid != (long)getpid())
            kill((pid_t)pid, SIGKILL);
    }
}

static bool job_cgroup_oom(runner_job *j)
{
    if (!j->cgroup[0])
        return false;
    char file[PATH_MAX + 32], buf[4096];
    snprintf(file, sizeof file, "%s/%s", j->cgroup,
             j->mem == RUNNER_MEM_CGROUP2 ? "memory.events" : "memory.oom_control");
    if (read_small(file, buf, sizeof buf) <= 0)
        return false;
    const char *p = strstr(buf, "oom_kill ");
    if (p)
        return strtol(p + 9, NULL, 10) > 0;
    if (j->mem == RUNNER_MEM_CGROUP1) {   /* older v1 kernels: only the failure counter */
        snprintf(file, sizeof file, "%s/memory.failcnt", j->cgroup);
        if (read_small(file, buf, sizeof buf) > 0)
            return strtol(buf, NULL, 10) > 0;
    }
    return false;
}

/* CPU time of every process the job's cgroup held (cgroup v2's cpu.stat, kept there whether
 * or not the cpu controller is on); -1 without one. In bubblewrap's sandbox the job's own
 * rusage misses what ran inside (its pid namespace's init does not hand it on: a 0.4 s shell
 * loop read 13 ms), and a compile stopped at its CPU limit looked like any SIGKILL. */
static long job_cgroup_cpu_ms(runner_job *j)
{
    if (!j->cgroup[0] || j->mem != RUNNER_MEM_CGROUP2)
        return -1;
    char file[PATH_MAX + 32], buf[4096];
    snprintf(file, sizeof file, "%s/cpu.stat", j->cgroup);
    if (read_small(file, buf, sizeof buf) <= 0)
        return -1;
    const char *p = strstr(buf, "usage_usec ");
    return p ? strtol(p + 11, NULL, 10) / 1000 : -1;
}

static void job_remove_cgroup(runner_job *j)
{
    if (!j->cgroup[0])
        return;
    /* the last processes may still be exiting: retry briefly */
    for (int i = 0; i < 50; i++) {
        if (rmdir(j->cgroup) == 0 || errno == ENOENT)
            break;
        job_kill_cgroup(j);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    j->cgroup[0] = '\0';
}

/* Child side after fork or vfork: only async-signal-safe calls on its own stack, no write to
 * the parent's memory but errno (vfork shares it); reports failure through errfd. */
static void job_child(runner_job *j, int in_fd, int out_fd, int err_fd, int errfd)
{
    int e = 0;
    if (setsid() < 0)
        goto fail;
    if (j->cgroup[0]) {
        char procs[PATH_MAX + 32];
        size_t l = strlen(j->cgroup);
        memcpy(procs, j->cgroup, l);
        memcpy(procs + l, "/cgroup.procs", sizeof "/cgroup.procs");
        if (write_small(procs, "0") != 0)
            goto fail;
    }
    if (j->iso == RUNNER_ISO_UNSHARE_NET &&
        enter_netns(iso_probe.unshare_needs_userns, j->uid_map, j->gid_map) != 0)
        goto fail;
    /* (the namespace sandbox is entered last, below, so its three processes share the
     * stdio, limits and signal dispositions set here) */
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        goto fail;
    for (size_t i = 0; i < j->spec.n_keep_fds; i++)
        if (fcntl(j->keep_fds[i], F_SETFD, 0) != 0)
            goto fail;
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    if (j->spec.cpu_seconds) {
        rl.rlim_cur = j->spec.cpu_seconds;
        rl.rlim_max = j->spec.cpu_seconds + 1;
        if (setrlimit(RLIMIT_CPU, &rl) != 0)
            goto fail;
    }
    if (j->spec.file_max) {
        rl.rlim_cur = rl.rlim_max = j->spec.file_max;
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            goto fail;
    }
    if (j->mem == RUNNER_MEM_RLIMIT_AS) {
        rl.rlim_cur = rl.rlim_max = j->spec.memory_max;
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            goto fail;
    }
    /* the namespace sandbox sets its own cap inside, after the user namespace exists: set
     * here, it would also become the user-wide ceiling of that namespace */
    if (j->spec.max_processes && j->iso != RUNNER_ISO_NAMESPACES) {
        rl.rlim_cur = rl.rlim_max = j->spec.max_processes;
        if (setrlimit(RLIMIT_NPROC, &rl) != 0)
            goto fail;
    }
    /* every signal arrives blocked (job_start): the dispositions go back to their defaults
     * before any is let through, so that none runs a handler of the parent in here (after
     * vfork, in the parent's memory) */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &sa, NULL);
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    if (j->iso == RUNNER_ISO_NAMESPACES && runner_ns_enter(j->ns_plan, errfd) != 0)
        goto fail;
    if (j->cwd && j->iso != RUNNER_ISO_BWRAP && j->iso != RUNNER_ISO_NAMESPACES &&
        chdir(j->cwd) != 0)
        goto fail;
    execvpe(j->exec_argv ? j->exec_argv[0] : j->argv[0], j->exec_argv ? j->exec_argv : j->argv,
            j->envp ? j->envp : (j->env ? j->env : environ));
fail:
    e = errno ? errno : EIO;
    while (write(errfd, &e, sizeof e) < 0 && errno == EINTR) {
    }
    _exit(127);
}

static int errno_to_hk(int e)
{
    switch (e) {
    case ENOENT: case ENOTDIR: return HK_ENOENT;
    case ENOMEM: return HK_ENOMEM;
    case EPERM: case EACCES: return HK_EIO;
    default: return HK_EIO;
    }
}

/* Forks and execs; on failure sets j->error (the job then counts as ended). */
static void job_start(runner_job *j)
{
    int in_fd = -1, outp[2] = {-1, -1}, errp[2] = {-1, -1}, statp[2] = {-1, -1};
    int rc = HK_OK;

    enum runner_isolation want = j->spec.isolation;
    j->iso = want == RUNNER_ISO_AUTO ? runner_isolation_available() : want;
    /* what was asked for, or nothing: never a weaker level than the one named; and a job
     * that hides directories needs a level that can hide them */
    if (!runner_isolation_works(j->iso) ||
        (j->hidden && j->hidden[0] && j->iso != RUNNER_ISO_BWRAP &&
         j->iso != RUNNER_ISO_NAMESPACES)) {
        rc = HK_EUNSUPPORTED;
        goto out;
    }
    id_maps(j->uid_map, j->gid_map, sizeof j->uid_map);
    j->mem = RUNNER_MEM_NONE;
    j->mem_words = EN(RUNMEM_NONE_ASKED);
    if (j->spec.memory_max) {
        j->mem = runner_memory_available(j->spec.gpu, &j->mem_words);
        if ((j->mem == RUNNER_MEM_CGROUP1 || j->mem == RUNNER_MEM_CGROUP2) && job_setup_cgroup(j)) {
            j->mem = j->spec.gpu ? RUNNER_MEM_NONE : RUNNER_MEM_RLIMIT_AS;
            j->mem_words = j->spec.gpu ? EN(RUNMEM_NONE_CGROUP_FAILED)
                                       : EN(RUNMEM_RLIMIT_CGROUP_FAILED);
        }
    }
    if ((rc = job_build_env(j)))
        goto out;
    if (j->iso == RUNNER_ISO_BWRAP && (rc = job_build_bwrap(j)))
        goto out;
    if (j->iso == RUNNER_ISO_NAMESPACES && (rc = job_build_ns(j)))
        goto out;

    in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in_fd < 0 || pipe2(outp, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) || pipe2(statp, O_CLOEXEC)) {
        rc = HK_EIO;
        goto out;
    }
    j->start_ms = now_ms();
    /* bwrap and the plain child: vfork, the child in this process's memory until its exec
     * or _exit (job_child writes only its own stack, and errno), so that no page table is
     * copied and no copy-on-write fault follows in this process: under ASan a fork of hkls
     * cost about 20 ms of CPU a job, an episode runs hundreds (issue 14,
     * bench/results/2026-12-06-ci-time-s35.md). The
     * network namespace and the namespace sandbox unshare a user namespace, which a
     * process sharing its memory cannot: fork. Signals stay blocked across it: the child
     * resets their handlers first. */
    bool shared = j->iso == RUNNER_ISO_BWRAP || j->iso == RUNNER_ISO_NONE;
    sigset_t block, old;
    sigfillset(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    j->pid = shared ? vfork() : fork();
    if (j->pid == 0) {
        close(outp[0]);
        close(errp[0]);
        close(statp[0]);
        job_child(j, in_fd, outp[1], errp[1], statp[1]);
    }
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (j->pid < 0) {
        errno = fork_errno;
        rc = HK_EIO;
        goto out;
    }
    close(statp[1]);
    statp[1] = -1;
    /* exec success closes the CLOEXEC status pipe with nothing written */
    int child_errno = 0;
    ssize_t n;
    while ((n = read(statp[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
    }
    if (n == (ssize_t)sizeof child_errno) {
        int st;
        while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR) {
        }
        j->pid = -1;
        rc = errno_to_hk(child_errno);
        HK_DEBUG("runner: could not start %s: %s", j->argv[0], strerror(child_errno));
        goto out;
    }
#ifdef SYS_pidfd_open
    j->pidfd = (int)syscall(SYS_pidfd_open, j->pid, 0);
#endif
    j->out_fd = outp[0];
    j->err_fd = errp[0];
    outp[0] = errp[0] = -1;
    fcntl(j->out_fd, F_SETFL, O_NONBLOCK);
    fcntl(j->err_fd, F_SETFL, O_NONBLOCK);
    j->deadline_ms = j->spec.timeout_ms ? j->start_ms + j->spec.timeout_ms : 0;
out:
    if (in_fd >= 0)
        close(in_fd);
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0)
            close(outp[i]);
        if (errp[i] >= 0)
            close(errp[i]);
        if (statp[i] >= 0)
            close(statp[i]);
    }
    if (rc) {
        j->error = rc;
        j->exited = true;
        job_remove_cgroup(j);
    }
}

static void job_read(runner_job *j, int *fd, struct hk_buf *b, bool *trunc)
{
    char chunk[65536];
    /* bounded, so a child that writes faster than we read cannot keep us from the timers */
    for (int rounds = 0; rounds < 16; rounds++) {
        ssize_t n = read(*fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            close(*fd);
            *fd = -1;
            return;
        }
        size_t room = b->max - b->len, take = (size_t)n < room ? (size_t)n : room;
        if (take < (size_t)n)
            *trunc = true;
        /* on ENOMEM the output is lost but the child is still watched */
        if (take && hk_buf_append(b, chunk, take) != HK_OK)
            *trunc = true;
    }
}

static void job_signal(runner_job *j, int sig)
{
    if (j->pid > 0)
        kill(-j->pid, sig);
    if (sig == SIGKILL)
        job_kill_cgroup(j);
}

/* Reaps the child if it ended. Kills its group before reaping, while the zombie still
 * pins the pid, so the group id cannot have been reused. */
static void job_check_exit(runner_job *j)
{
    if (j->exited || j->pid <= 0)
        return;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)j->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
        return;
    job_signal(j, SIGKILL);
    int st = 0;
    while (wait4(j->pid, &st, 0, &j->ru) < 0 && errno == EINTR) {
    }
    j->status = st;
    j->exited = true;
    j->end_ms = now_ms();
    j->drain_until_ms = j->end_ms + RUNNER_DRAIN_MS;
    if (j->pidfd >= 0) {
        close(j->pidfd);
        j->pidfd = -1;
    }
}

static bool job_done(const runner_job *j, int64_t now)
{
    if (!j->exited)
        return false;
    if (j->error)
        return true;
    return (j->out_fd < 0 && j->err_fd < 0) || now >= j->drain_until_ms;
}

/* Timers: timeout (SIGTERM to the group), then SIGKILL after the grace period. */
static void job_timers(runner_job *j, int64_t now)
{
    if (j->exited)
        return;
    if (j->deadline_ms && !j->timed_out && now >= j->deadline_ms) {
        j->timed_out = true;
        job_signal(j, SIGTERM);
        j->kill_at_ms = now + (j->spec.kill_grace_ms ? j->spec.kill_grace_ms : RUNNER_DEFAULT_GRACE_MS);
    }
    if (j->kill_at_ms && now >= j->kill_at_ms) {
        job_signal(j, SIGKILL);
        j->kill_at_ms = 0;
    }
}

/* Moves the job's outcome into r and frees the job. */
static void job_finish(runner_job *j, runner_result *r)
{
    memset(r, 0, sizeof *r);
    if (j->out_fd >= 0)
        close(j->out_fd);
    if (j->err_fd >= 0)
        close(j->err_fd);
    if (j->pidfd >= 0)
        close(j->pidfd);
    j->out_fd = j->err_fd = j->pidfd = -1;
    r->error = j->error;
    r->exit_code = -1;
    if (!j->error) {
        if (WIFEXITED(j->status)) {
            r->exit_code = WEXITSTATUS(j->status);
        } else if (WIFSIGNALED(j->status)) {
            r->term_signal = WTERMSIG(j->status);
        }
        r->timed_out = j->timed_out;
        r->wall_ms = (long)(j->end_ms - j->start_ms);
        r->cpu_ms = (long)(j->ru.ru_utime.tv_sec * 1000 + j->ru.ru_utime.tv_usec / 1000 +
                           j->ru.ru_stime.tv_sec * 1000 + j->ru.ru_stime.tv_usec / 1000);
        long cg_ms = job_cgroup_cpu_ms(j);
        if (cg_ms > r->cpu_ms)
            r->cpu_ms = cg_ms;
        r->cpu_limit_hit = j->spec.cpu_seconds &&
                           (r->term_signal == SIGXCPU ||
                            (r->term_signal == SIGKILL && !j->timed_out &&
                             r->cpu_ms >= (long)j->spec.cpu_seconds * 1000));
        r->file_limit_hit = r->term_signal == SIGXFSZ;
        r->memory_limit_hit = job_cgroup_oom(j);
    }
    job_remove_cgroup(j);
    r->out_truncated = j->out_trunc;
    r->err_truncated = j->err_trunc;
    r->out_len = j->out.len;
    r->err_len = j->err.len;
    r->out = hk_buf_steal(&j->out);
    r->err = hk_buf_steal(&j->err);
    if (!r->out)
        r->out = hk_strdup("");
    if (!r->err)
        r->err = hk_strdup("");
    if (!r->out || !r->err) {
        r->out_len = r->out ? r->out_len : 0;
        r->err_len = r->err ? r->err_len : 0;
        if (!r->error)
            r->error = HK_ENOMEM;
    }
    r->isolation = j->iso;
    r->isolation_words = runner_isolation_name(j->iso);
    r->memory = j->mem;
    r->memory_words = j->mem_words ? j->mem_words : EN(RUNMEM_NONE_ASKED);
    job_free(j);
}

/* ------------------------------------------------------------------ pool */

int runner_pool_new(unsigned max_parallel, runner_pool **out)
{
    *out = NULL;
    if (!max_parallel) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        max_parallel = n > 0 ? (unsigned)n : 1;
    }
    if (max_parallel > 1024)
        max_parallel = 1024;
    runner_pool *p = hk_calloc(1, sizeof *p);
    if (!p)
        return HK_ENOMEM;
    p->max_parallel = max_parallel;
    p->running = hk_calloc(max_parallel, sizeof *p->running);
    if (!p->running) {
        hk_free(p);
        return HK_ENOMEM;
    }
    *out = p;
    return HK_OK;
}

void runner_pool_delay_timeouts(runner_pool *p, unsigned ms)
{
    for (size_t i = 0; p && ms && i < p->n_running; i++) {
        runner_job *j = p->running[i];
        if (j->deadline_ms && !j->timed_out && !j->exited)
            j->deadline_ms += ms;
    }
}

void runner_pool_cancel(runner_pool *p)
{
    if (!p)
        return;
    while (p->queue_head) {
        runner_job *j = p->queue_head;
        p->queue_head = j->next;
        job_free(j);
    }
    p->queue_tail = NULL;
    for (size_t i = 0; i < p->n_running; i++) {
        runner_job *j = p->running[i];
        if (!j->exited && j->pid > 0) {
            job_signal(j, SIGKILL);
            int st;
            while (wait4(j->pid, &st, 0, NULL) < 0 && errno == EINTR) {
            }
            j->exited = true;
        }
        runner_result r;
        job_finish(j, &r);
        runner_result_free(&r);
    }
    p->n_running = 0;
}

void runner_pool_free(runner_pool *p)
{
    if (!p)
        return;
    runner_pool_cancel(p);
    hk_free(p->running);
    hk_free(p);
}

int runner_pool_submit(runner_pool *p, const runner_spec *spec, void *tag)
{
    if (!p)
        return HK_EINVAL;
    runner_job *j;
    int rc = job_new(spec, tag, &j);
    if (rc)
        return rc;
    if (p->queue_tail)
        p->queue_tail->next = j;
    else
        p->queue_head = j;
    p->queue_tail = j;
    return HK_OK;
}

size_t runner_pool_pending(const runner_pool *p)
{
    size_t n = p->n_running;
    for (const runner_job *j = p->queue_head; j; j = j->next)
        n++;
    return n;
}

static void pool_start_queued(runner_pool *p)
{
    while (p->queue_head && p->n_running < p->max_parallel) {
        runner_job *j = p->queue_head;
        p->queue_head = j->next;
        if (!p->queue_head)
            p->queue_tail = NULL;
        j->next = NULL;
        job_start(j);
        p->running[p->n_running++] = j;
    }
}

int runner_pool_wait(runner_pool *p, int wait_ms, void **tag, runner_result *r)
{
    memset(r, 0, sizeof *r);
    if (tag)
        *tag = NULL;
    if (!p)
        return HK_EINVAL;
    int64_t give_up = wait_ms >= 0 ? now_ms() + wait_ms : 0;
    for (;;) {
        pool_start_queued(p);
        if (p->n_running == 0)
            return HK_ENOENT;
        int64_t now = now_ms();
        for (size_t i = 0; i < p->n_running; i++) {
            runner_job *j = p->running[i];
            job_check_exit(j);
            job_timers(j, now);
            if (job_done(j, now)) {
                p->running[i] = p->running[--p->n_running];
                if (tag)
                    *tag = j->tag;
                job_finish(j, r);
                return HK_OK;
            }
        }
        if (give_up && now >= give_up)
            return HK_ETIMEDOUT;

        /* wait for output, an exit, or the nearest timer */
        struct pollfd fds[3 * 1024];
        runner_job *owner[3 * 1024];
        nfds_t nfds = 0;
        int64_t next = give_up;
        bool need_tick = false;
        for (size_t i = 0; i < p->n_running; i++) {
            runner_job *j = p->running[i];
            if (j->out_fd >= 0) {
                fds[nfds] = (struct pollfd){.fd = j->out_fd, .events = POLLIN};
                owner[nfds++] = j;
            }
            if (j->err_fd >= 0) {
                fds[nfds] = (struct pollfd){.fd = j->err_fd, .events = POLLIN};
                owner[nfds++] = j;
            }
            if (!j->exited && j->pidfd >= 0) {
                fds[nfds] = (struct pollfd){.fd = j->pidfd, .events = POLLIN};
                owner[nfds++] = j;
            } else if (!j->exited) {
                need_tick = true;   /* no pidfd: poll for the exit every few ms */
            }
            int64_t t[3] = {j->exited ? 0 : j->deadline_ms, j->exited ? 0 : j->kill_at_ms,
                            j->exited ? j->drain_until_ms : 0};
            if (j->timed_out)
                t[0] = 0;
            for (int k = 0; k < 3; k++)
                if (t[k] && (!next || t[k] < next))
                    next = t[k];
        }
        int timeout = -1;
        if (next)
            timeout = next > now ? (int)(next - now) : 0;
        if (need_tick && (timeout < 0 || timeout > 10))
            timeout = 10;
        int n = poll(fds, nfds, timeout);
        if (n < 0 && errno != EINTR)
            return HK_EIO;
        for (nfds_t k = 0; n > 0 && k < nfds; k++) {
            if (!fds[k].revents)
                continue;
            runner_job *j = owner[k];
            if (fds[k].fd == j->out_fd)
                job_read(j, &j->out_fd, &j->out, &j->out_trunc);
            else if (fds[k].fd == j->err_fd)
                job_read(j, &j->err_fd, &j->err, &j->err_trunc);
        }
    }
}

/* ------------------------------------------------------------------ one-shot */

void runner_result_free(runner_result *r)
{
    if (!r)
        return;
    hk_free(r->out);
    hk_free(r->err);
    memset(r, 0, sizeof *r);
}

int runner_run(const runner_spec *spec, runner_result *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    runner_pool *p = NULL;
    int rc = runner_pool_new(1, &p);
    if (rc) {
        r->error = rc;
        return rc;
    }
    if ((rc = runner_pool_submit(p, spec, NULL))) {
        r->error = rc;
        goto out;
    }
    rc = runner_pool_wait(p, -1, NULL, r);
    if (rc == HK_OK)
        rc = r->error;
out:
    runner_pool_free(p);
    return rc;
}
