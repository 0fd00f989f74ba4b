/* Namespace sandbox without bubblewrap: user (when needed), mount, pid, network, IPC and
 * UTS namespaces; a read-only view of the host root with a private /tmp, a minimal /dev,
 * a /proc of the job's own pid namespace, and only the work directory writable. The plan
 * is a list of mount steps rendered before fork; the child only replays it. */
#include "runners/runner_ns.h"

#include "core/hk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* mount_setattr (Linux 5.12) is the only way to make a recursive bind read-only in one
 * step; older kernels fail the probe, so the sandbox is then simply not offered. The
 * struct and constants are spelled here because <linux/mount.h> clashes with
 * <sys/mount.h> on the glibc versions the project builds with. */
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define NS_ATTR_RDONLY 0x1ull
#define NS_ATTR_NOSUID 0x2ull
struct ns_mount_attr {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* Where the host root and the new root hang between the two pivots (inside a tmpfs
 * mounted over /tmp of the job's private mount namespace, the one directory every
 * Linux root has and that the sandbox replaces anyway). */
#define NS_BASE "/tmp"
#define NS_NEW "/newroot"
#define NS_OLD "/oldroot"

/* As root, RLIMIT_NPROC does not apply to uid 0 (the kernel exempts INIT_USER), so the
 * program runs as a uid no account uses: this base plus the waiter's pid (pid_max is at
 * most 2^22), which also makes the process count per job. */
#define NS_UID_BASE 0x40000000u

enum ns_op_kind {
    NS_BIND_RO,   /* recursive bind, then recursively read-only and nosuid */
    NS_BIND_RW,   /* recursive bind, writable as the source is */
    NS_BIND_NODE, /* bind of one device node onto an empty file */
    NS_TMPFS,     /* tmpfs with flags and data */
    NS_PROC,      /* proc of the new pid namespace */
    NS_RO_SELF,   /* bind a path onto itself read-only (skipped when missing) */
    NS_SYMLINK,   /* symlink src at dst */
    NS_MKDIR,     /* one directory */
};

struct ns_op {
    enum ns_op_kind kind;
    char *src;            /* host path under NS_OLD, symlink target; or NULL */
    char *dst;            /* path under NS_NEW */
    unsigned long flags;  /* NS_TMPFS: mount flags */
    const char *data;     /* NS_TMPFS: options (static) */
};

struct runner_ns_plan {
    struct ns_op *ops;
    size_t n_ops, cap_ops;
    char *cwd;            /* chdir target inside the sandbox */
    bool userns;
    bool switch_uid;      /* root without a user namespace: run as NS_UID_BASE + pid */
    unsigned max_processes;
    int cap_last;         /* highest capability number this kernel knows */
    char uid_map[64], gid_map[64];
};

/* ------------------------------------------------------------------ plan (parent side) */

void runner_ns_plan_free(runner_ns_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_ops; i++) {
        hk_free(p->ops[i].src);
        hk_free(p->ops[i].dst);
    }
    hk_free(p->ops);
    hk_free(p->cwd);
    hk_free(p);
}

/* Appends a step; src/dst are formatted as prefix + path. HK_OK, HK_ENOMEM, HK_ETOOBIG. */
static int plan_add(runner_ns_plan *p, enum ns_op_kind kind, const char *src_prefix,
                    const char *src, const char *dst, unsigned long flags, const char *data)
{
    if (p->n_ops == p->cap_ops) {
        size_t cap = p->cap_ops ? 2 * p->cap_ops : 32;
        struct ns_op *ops = hk_realloc(p->ops, cap * sizeof *ops);
        if (!ops)
            return HK_ENOMEM;
        p->ops = ops;
        p->cap_ops = cap;
    }
    struct ns_op *op = &p->ops[p->n_ops];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->flags = flags;
    op->data = data;
    /* a full path is built by the child into PATH_MAX buffers: refuse longer ones here */
    if (strlen(dst) + sizeof NS_NEW >= PATH_MAX ||
        (src && strlen(src) + (src_prefix ? strlen(src_prefix) : 0) >= PATH_MAX))
        return HK_ETOOBIG;
    if (!(op->dst = hk_asprintf("%s%s", NS_NEW, strcmp(dst, "/") == 0 ? "" : dst)))
        return HK_ENOMEM;
    if (src && !(op->src = hk_asprintf("%s%s", src_prefix ? src_prefix : "",
                                        src_prefix && strcmp(src, "/") == 0 ? "" : src))) {
        hk_free(op->dst);
        return HK_ENOMEM;
    }
    p->n_ops++;
    return HK_OK;
}

/* Canonical absolute path of an existing directory, new string in *out; NULL when it
 * does not exist. Symlinks are resolved here because, inside the sandbox under
 * construction, an absolute symlink would resolve against the wrong root. */
static int canonical_dir(const char *path, char **out)
{
    *out = NULL;
    if (!path || !*path)
        return HK_EINVAL;
    /* relative paths are taken from the runner's directory, as bwrap would take them */
    char *r = realpath(path, NULL);   /* libc malloc: copied into the hk allocator below */
    if (!r)
        return errno == ENOMEM ? HK_ENOMEM : HK_OK;
    struct stat st;
    int rc = HK_OK;
    if (stat(r, &st) == 0 && S_ISDIR(st.st_mode) && !(*out = hk_strdup(r)))
        rc = HK_ENOMEM;
    free(r);
    return rc;
}

/* Binds each existing directory of v with kind. */
static int plan_dirs(runner_ns_plan *p, const char *const *v, enum ns_op_kind kind)
{
    for (size_t i = 0; v && v[i]; i++) {
        char *c = NULL;
        int rc = canonical_dir(v[i], &c);
        if (rc)
            return rc;
        if (!c)
            continue;
        if (kind == NS_TMPFS)   /* hidden: empty, read-only, nothing executable */
            rc = plan_add(p, NS_TMPFS, NULL, NULL, c, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                          "mode=0555,size=4k");
        else
            rc = plan_add(p, kind, NS_OLD, c, c, 0, NULL);
        hk_free(c);
        if (rc)
            return rc;
    }
    return HK_OK;
}

/* The private /dev: a few harmless nodes of the host, the usual links, a private shm,
 * and with gpu the GPU driver's nodes (NVIDIA, AMD KFD, DRI) -- shared with the host. */
static int plan_dev(runner_ns_plan *p, bool gpu)
{
    static const char *const nodes[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                        "/dev/urandom", "/dev/tty"};
    static const char *const links[][2] = {{"/proc/self/fd", "/dev/fd"},
                                           {"/proc/self/fd/0", "/dev/stdin"},
                                           {"/proc/self/fd/1", "/dev/stdout"},
                                           {"/proc/self/fd/2", "/dev/stderr"}};
    int rc = plan_add(p, NS_TMPFS, NULL, NULL, "/dev", MS_NOSUID | MS_NOEXEC, "mode=0755");
    for (size_t i = 0; i < HK_ARRAY_LEN(nodes) && !rc; i++)
        if (access(nodes[i], F_OK) == 0)
            rc = plan_add(p, NS_BIND_NODE, NS_OLD, nodes[i], nodes[i], 0, NULL);
    for (size_t i = 0; i < HK_ARRAY_LEN(links) && !rc; i++)
        rc = plan_add(p, NS_SYMLINK, NULL, links[i][0], links[i][1], 0, NULL);
    if (!rc)
        rc = plan_add(p, NS_MKDIR, NULL, NULL, "/dev/shm", 0, NULL);
    if (!rc)
        rc = plan_add(p, NS_TMPFS, NULL, NULL, "/dev/shm", MS_NOSUID | MS_NODEV, "mode=1777");
    if (rc || !gpu)
        return rc;
    DIR *d = opendir("/dev");
    struct dirent *de;
    char path[PATH_MAX];
    while (!rc && d && (de = readdir(d)) != NULL) {
        bool want = strncmp(de->d_name, "nvidia", 6) == 0 || strcmp(de->d_name, "kfd") == 0 ||
                    strcmp(de->d_name, "dri") == 0;
        int l = snprintf(path, sizeof path, "/dev/%s", de->d_name);
        struct stat st;
        if (!want || l < 0 || (size_t)l >= sizeof path || stat(path, &st) != 0)
            continue;
        /* directories (nvidia-caps, dri) are bound whole and stay read-write */
        rc = plan_add(p, S_ISDIR(st.st_mode) ? NS_BIND_RW : NS_BIND_NODE, NS_OLD, path, path, 0,
                      NULL);
    }
    if (d)
        closedir(d);
    return rc;
}

static int read_cap_last(void)
{
    char buf[32];
    int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 63;   /* unknown: drop up to the largest number a capability set can hold */
    buf[n] = '\0';
    int v = atoi(buf);
    return v > 0 && v < 64 ? v : 63;
}

int runner_ns_plan_new(const runner_ns_options *o, runner_ns_plan **out)
{
    *out = NULL;
    runner_ns_plan *p = hk_calloc(1, sizeof *p);
    if (!p)
        return HK_ENOMEM;
    int rc = HK_OK;
    p->userns = o->userns;
    p->switch_uid = !o->userns && geteuid() == 0;
    p->max_processes = o->max_processes;
    p->cap_last = read_cap_last();
    snprintf(p->uid_map, sizeof p->uid_map, "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
    snprintf(p->gid_map, sizeof p->gid_map, "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());
    if (o->cwd) {
        if ((rc = canonical_dir(o->cwd, &p->cwd)))
            goto out;
        if (!p->cwd) {
            rc = HK_ENOENT;
            goto out;
        }
    } else if (!(p->cwd = hk_strdup("/"))) {
        rc = HK_ENOMEM;
        goto out;
    }

    /* the host root, read-only and nosuid all the way down */
    if ((rc = plan_add(p, NS_BIND_RO, NULL, NS_OLD, "/", 0, NULL)))
        goto out;
    /* a /proc that shows only the job's processes; the knobs a uid-0 program could still
     * write without capabilities (sysctls, sysrq) are made read-only, as bwrap does */
    static const char *const proc_ro[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
                                          "/proc/bus"};
    if ((rc = plan_add(p, NS_PROC, NULL, NULL, "/proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)))
        goto out;
    for (size_t i = 0; i < HK_ARRAY_LEN(proc_ro); i++)
        if ((rc = plan_add(p, NS_RO_SELF, NULL, NULL, proc_ro[i], 0, NULL)))
            goto out;
    if ((rc = plan_add(p, NS_TMPFS, NULL, NULL, "/tmp", MS_NOSUID | MS_NODEV, "mode=1777")))
        goto out;
    if ((rc = plan_dev(p, o->gpu)))
        goto out;
    /* bwrap's order: read-only binds, then writable ones (a writable directory inside a
     * readable one stays writable), then hidden ones (a hidden directory inside the work
     * directory stays hidden) */
    if ((rc = plan_dirs(p, o->readable, NS_BIND_RO)) || (rc = plan_dirs(p, o->writable, NS_BIND_RW)))
        goto out;
    if (o->cwd && (rc = plan_add(p, NS_BIND_RW, NS_OLD, p->cwd, p->cwd, 0, NULL)))
        goto out;
    if ((rc = plan_dirs(p, o->hidden, NS_TMPFS)))
        goto out;
out:
    if (rc) {
        runner_ns_plan_free(p);
        return rc;
    }
    *out = p;
    return HK_OK;
}

/* ------------------------------------------------------------------ child side */

static int ns_write_file(const char *path, const char *s)
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

static int ns_set_ro(const char *path)
{
    struct ns_mount_attr a = {.attr_set = NS_ATTR_RDONLY | NS_ATTR_NOSUID};
    return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &a, sizeof a);
}

/* mkdir -p of a path's parents, errors ignored: a missing mount point shows up as the
 * mount's ENOENT, and on the read-only parts the directories exist already. */
static void ns_mkdir_parents(const char *path)
{
    char buf[PATH_MAX];
    size_t len = strlen(path);
    if (len >= sizeof buf)
        return;
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i < len; i++) {
        if (buf[i] != '/')
            continue;
        buf[i] = '\0';
        (void)mkdir(buf, 0755);
        buf[i] = '/';
    }
}

static int ns_run_op(const struct ns_op *op)
{
    int fd;
    switch (op->kind) {
    case NS_BIND_RO:
    case NS_BIND_RW:
        ns_mkdir_parents(op->dst);
        (void)mkdir(op->dst, 0755);
        /* MS_REC: in a user namespace a bind without it is refused when it would uncover
         * what a locked submount hides */
        if (mount(op->src, op->dst, NULL, MS_BIND | MS_REC, NULL) != 0)
            return -1;
        return op->kind == NS_BIND_RO ? ns_set_ro(op->dst) : 0;
    case NS_BIND_NODE:
        ns_mkdir_parents(op->dst);
        fd = open(op->dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1;
        close(fd);
        return mount(op->src, op->dst, NULL, MS_BIND, NULL);
    case NS_TMPFS:
        ns_mkdir_parents(op->dst);
        (void)mkdir(op->dst, 0755);
        return mount("tmpfs", op->dst, "tmpfs", op->flags, op->data);
    case NS_PROC:
        return mount("proc", op->dst, "proc", op->flags, NULL);
    case NS_RO_SELF:
        if (access(op->dst, F_OK) != 0)
            return 0;
        if (mount(op->dst, op->dst, NULL, MS_BIND | MS_REC, NULL) != 0)
            return -1;
        return ns_set_ro(op->dst);
    case NS_SYMLINK:
        return symlink(op->src, op->dst);
    case NS_MKDIR:
        return mkdir(op->dst, 0755);
    }
    errno = EINVAL;
    return -1;
}

/* In init, before forking the program: the new root, entered with two pivots. The first
 * puts the host root at NS_OLD so binds can name host paths even where the new root
 * covers them (/tmp); the second makes NS_NEW the root and drops everything else. */
static int ns_build_root(const runner_ns_plan *p)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return -1;
    if (mount("tmpfs", NS_BASE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") != 0)
        return -1;
    if (mkdir(NS_BASE NS_NEW, 0755) != 0 || mkdir(NS_BASE NS_OLD, 0755) != 0)
        return -1;
    if (syscall(SYS_pivot_root, NS_BASE, NS_BASE NS_OLD) != 0 || chdir("/") != 0)
        return -1;
    for (size_t i = 0; i < p->n_ops; i++)
        if (ns_run_op(&p->ops[i]) != 0)
            return -1;
    if (umount2(NS_OLD, MNT_DETACH) != 0 || chdir(NS_NEW) != 0)
        return -1;
    /* pivot_root(".", ".") stacks the old root on the new one; detaching it leaves the new
     * root alone (pivot_root(2)), with no directory needed inside the read-only root */
    if (syscall(SYS_pivot_root, ".", ".") != 0 || umount2(".", MNT_DETACH) != 0)
        return -1;
    if (chdir("/") != 0 || chdir(p->cwd) != 0)
        return -1;
    return 0;
}

/* Sets the low capability word; keep_rest: the other sets stay as they are (only the
 * inheritable word changes), else every set becomes exactly the given bits. */
static int ns_capset(uint32_t bits, bool keep_rest)
{
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (keep_rest && syscall(SYS_capget, &h, d) != 0)
        return -1;
    d[0].inheritable = bits;
    d[1].inheritable = 0;
    if (!keep_rest) {
        d[0].effective = d[0].permitted = bits;
        d[1].effective = d[1].permitted = 0;
    }
    return (int)syscall(SYS_capset, &h, d);
}

/* In the program's process, last step before exec. No capability can survive (bounding
 * set emptied, no new privileges), so the program cannot undo a mount. As root without a
 * user namespace the program also leaves uid 0, so that RLIMIT_NPROC applies to it; it
 * keeps CAP_DAC_OVERRIDE alone (as an ambient capability, the one kind exec keeps for a
 * non-root uid) so the work directory, owned by root, stays writable to it. */
static int ns_drop_privileges(const runner_ns_plan *p, unsigned uid)
{
    const uint32_t dac = 1u << CAP_DAC_OVERRIDE;
    /* the inheritable bit must be set while CAP_SETPCAP is still there */
    if (p->switch_uid && ns_capset(dac, true) != 0)
        return -1;
    for (int c = 0; c <= p->cap_last; c++) {
        if (p->switch_uid && c == CAP_DAC_OVERRIDE)
            continue;
        if (prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0) != 0 && errno != EINVAL)
            return -1;
    }
    if (p->switch_uid) {
        /* raw system calls: glibc's wrappers broadcast to threads the child does not have */
        if (syscall(SYS_setgroups, 0, NULL) != 0 || syscall(SYS_setresgid, uid, uid, uid) != 0)
            return -1;
        if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 || syscall(SYS_setresuid, uid, uid, uid) != 0)
            return -1;
        if (ns_capset(dac, false) != 0 ||
            prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_OVERRIDE, 0, 0) != 0)
            return -1;
    }
    if (p->max_processes) {
        struct rlimit rl = {p->max_processes, p->max_processes};
        if (setrlimit(RLIMIT_NPROC, &rl) != 0)
            return -1;
    }
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* The waiter (outside the namespaces, the runner's direct child): ends the way the
 * program ended, so exit codes and signals reach the runner unchanged. It ignores every
 * signal it can: the runner's SIGTERM at a timeout reaches the program through the
 * process group and comes back here as the program's own death; SIGKILL still ends the
 * waiter, and then init and the whole namespace with it. */
static void ns_waiter(pid_t init, int report_fd)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    for (int s = 1; s < NSIG; s++)
        if (s != SIGCHLD && s != SIGKILL && s != SIGSTOP)
            sigaction(s, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int st = 0, prog = 0;
    while (waitpid(init, &st, 0) < 0 && errno == EINTR) {
    }
    ssize_t n;
    while ((n = read(report_fd, &prog, sizeof prog)) < 0 && errno == EINTR) {
    }
    /* no report: init itself died (OOM killer, SIGKILL): mirror that instead */
    if (n == (ssize_t)sizeof prog)
        st = prog;
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        sa.sa_handler = SIG_DFL;
        sigaction(sig, &sa, NULL);
        kill(getpid(), sig);
        _exit(128 + sig);   /* only when the signal's default is not to terminate */
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
}

/* Init (pid 1 of the job's pid namespace): reaps everything and, when the program ends,
 * reports its wait status and exits, which makes the kernel kill whatever the program
 * left behind in the namespace (the same rule as the runner's group kill). The program is
 * not pid 1 itself because pid 1 ignores every signal it has no handler for: `kill -SEGV
 * $$` or the runner's SIGTERM would do nothing. */
static void ns_init(pid_t prog, int report_fd)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid == prog) {
            while (write(report_fd, &st, sizeof st) < 0 && errno == EINTR) {
            }
            _exit(0);
        }
        if (pid < 0 && errno != EINTR)
            _exit(127);
    }
}

/* The new network namespace has only a loopback interface, and it starts down. Tools that
 * talk to their own child over 127.0.0.1 need it up (compute-sanitizer's front end and the
 * target it launches: without it, "Error launching target app"). Nothing outside the
 * namespace is reachable either way. Best effort: a failure leaves it down. */
static void ns_loopback_up(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        (void)ioctl(fd, SIOCSIFFLAGS, &ifr);
    }
    close(fd);
}

int runner_ns_enter(const runner_ns_plan *p, int status_fd)
{
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS;
    unsigned uid = NS_UID_BASE + (unsigned)getpid();
    int report[2] = {-1, -1};
    if (unshare(flags | (p->userns ? CLONE_NEWUSER : 0)) != 0)
        return -1;
    if (p->userns) {
        (void)ns_write_file("/proc/self/setgroups", "deny");
        if (ns_write_file("/proc/self/uid_map", p->uid_map) != 0 ||
            ns_write_file("/proc/self/gid_map", p->gid_map) != 0)
            return -1;
    }
    ns_loopback_up();
    if (pipe2(report, O_CLOEXEC) != 0)
        return -1;
    /* blocked across the fork so a signal cannot end the waiter before it ignores it */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    pid_t init = fork();
    if (init < 0) {
        int e = errno;
        sigprocmask(SIG_SETMASK, &old, NULL);
        errno = e;
        return -1;
    }
    if (init > 0) {
        close(report[1]);
        close(status_fd);
        for (int fd = 0; fd < 3; fd++)
            close(fd);
        ns_waiter(init, report[0]);
    }
    close(report[0]);
    sigprocmask(SIG_SETMASK, &old, NULL);
    /* the waiter's SIGKILL must take init (and so the namespace) with it; the waiter is
     * in the same process group, so a group kill reaches init even before this line */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (ns_build_root(p) != 0)
        return -1;
    pid_t prog = fork();
    if (prog < 0)
        return -1;
    if (prog > 0) {
        close(status_fd);
        for (int fd = 0; fd < 3; fd++)
            close(fd);
        ns_init(prog, report[1]);
    }
    close(report[1]);
    return ns_drop_privileges(p, uid);
}
