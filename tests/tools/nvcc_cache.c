/* The test suite's compile cache: a stand-in for nvcc (and hipcc) that the test run puts
 * first on PATH (./hk test). Many tests compile the same text in folders of their own, and
 * the ASan pass compiles everything the plain pass did; this answers a compile it has seen
 * from its cache folder instead of running the compiler again.
 *
 * A compile is named by what it is made of, not by where it lies: the compiler (its
 * resolved file, size and mtime), each argument, where an argument that names a file is
 * replaced by that file's content and the content of every header it includes that
 * resolves to a file (quoted includes from the including file's folder, any include from
 * the -I folders, absolute includes as written, except that the folder of a file argument
 * in an absolute include counts as that argument's folder, whatever its name; a
 * -DNAME="FILE" that names a file counts as FILE's content and name, the same way), an
 * argument that names a folder, alone or joined as -IDIR, by "a folder" (what it holds
 * counts through the includes found there), and the output's extension in place of its path (a trailing process id and a temporary's ".tmp" left
 * out: out_extension();
 * "-o -", output on stdout, is kept as stdout).
 * A hit writes the recorded output file and replays the recorded stdout and stderr and
 * exit status, with the recorded folders of the file arguments replaced by the
 * current ones (compiler messages name the files they are about). System headers are not
 * hashed: they do not change during a test run.
 *
 * Anything it does not understand goes straight to the compiler: no -o, or a flag that
 * writes other files or reads from stdin, except -save-temps=obj (hipcc's, as measure.c
 * builds a DCU image: clang's assembly kept beside the code object for the clock scan):
 * the files it writes beside the output, named after a source argument ("module-hip-...",
 * save_temps()), are kept with the entry and written back on a hit, a text one with its
 * recorded folders replaced by the current ones as in messages, a binary one as it was,
 * as the output itself is. Without HK_NVCC_CACHE (the cache folder) it is
 * the compiler. The real compiler: HK_REAL_NVCC / HK_REAL_HIPCC, else the next one of
 * that name on PATH after this program, else /usr/local/cuda/bin/nvcc, /opt/rocm/bin/hipcc.
 * Named g++ (test-tools/cxx/g++), it stands for g++ (HK_REAL_CXX, else g++ on PATH): the
 * block emulator's programs (tests/unit/emu_block.h), the same text in both passes.
 *
 * With HK_NVCC_LOG (a file), each call appends one line to it: what it was (hit, miss, or
 * direct: a compile it does not cache), the wall and CPU seconds of the compiler it ran
 * (0 for a hit), the key, the test that asked (HK_TEST_NAME, else the program ctest
 * started, else the working folder), and the command line; how a test's time is measured
 * (bench/results/2026-12-02-ci-time.md).
 *
 * Test-only: the product never caches a candidate's compile (docs/referee.md). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_INCLUDE_DIRS 64
#define MAX_SEEN 512

typedef struct {
    uint64_t a, b; /* two FNV-1a lanes with different seeds: 128 bits */
} hash128;

static void mix(hash128 *h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ s[i]) * 0x100000001B3ull;
        h->b = (h->b ^ s[i]) * 0x100000001B3ull;
        h->b ^= h->b >> 29;
    }
}

static void mixs(hash128 *h, const char *s)
{
    mix(h, s, strlen(s) + 1); /* with the NUL: "ab","c" differs from "a","bc" */
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(b, 2 * cap + 1);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!b)
        return NULL;
    b[n] = '\0';
    *len = n;
    return b;
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *inc_dirs[MAX_INCLUDE_DIRS];
static size_t n_inc;
static char *seen[MAX_SEEN];
static size_t n_seen;
/* the folders of the file arguments (the output's included), resolved, in argument order */
static char *now[128];
static size_t n_now;

/* The index in now[] of the folder of an absolute include name, or -1. */
static long now_dir_of(const char *name, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.*s", (int)len, name);
    char *real = realpath(dirname(path), NULL);
    long k = -1;
    for (size_t i = 0; real && i < n_now && k < 0; i++)
        if (!strcmp(real, now[i]))
            k = (long)i;
    free(real);
    return k;
}

/* Folds one line of a source into h. An absolute include of a file that lies in the folder
 * of a file argument is folded with that folder as its index: a generated program names its
 * candidate by an absolute path in a fresh work folder (measure.c's module.cu), and the same
 * text in another folder is the same compile. The included file's content is folded anyway;
 * only its name in line info and __FILE__ differs in the recorded output, as in messages
 * (which replay() maps back). */
static size_t mix_line(hash128 *h, const char *line, size_t len, const char *name,
                       size_t name_len)
{
    long k = name && name[0] == '/' ? now_dir_of(name, name_len) : -1;
    const char *base = k >= 0 ? memrchr(name, '/', name_len) : NULL;
    if (!base) {
        mix(h, line, len);
        return len;
    }
    mix(h, line, (size_t)(name - line));
    mixs(h, "(folder)");
    mix(h, &k, sizeof k);
    mix(h, base, len - (size_t)(base - line));
    return (size_t)(name - line) + sizeof "(folder)" + sizeof k + len - (size_t)(base - line);
}

/* Folds a source file into h: its bytes, then each header it includes that resolves to a
 * file, recursively (each file once). */
static void mix_source(hash128 *h, const char *path)
{
    char *real = realpath(path, NULL);
    if (!real)
        return;
    for (size_t i = 0; i < n_seen; i++)
        if (!strcmp(seen[i], real)) {
            free(real);
            mixs(h, "(again)");
            return;
        }
    if (n_seen < MAX_SEEN)
        seen[n_seen++] = real;
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) {
        mixs(h, "(unreadable)");
        return;
    }
    /* where this file's text ends and an included one's begins: the length of what was
     * folded of it, after the text. Not the file's own length, which holds the length of
     * each folder mix_line() folds as an index: the same program in the ASan pass's work
     * folder (build-asan/test-...: five bytes longer) was another compile. */
    size_t folded = 0;
    char *dir = strdup(path);
    char *d = dir ? dirname(dir) : (char *)".";
    char *line = text;
    for (; line && *line;) {
        char *nl = strchr(line, '\n');
        size_t line_len = nl ? (size_t)(nl + 1 - line) : strlen(line);
        const char *inc_name = NULL;
        size_t inc_len = 0;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#') {
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
            if (!strncmp(p, "include", 7)) {
                p += 7;
                while (*p == ' ' || *p == '\t')
                    p++;
                char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
                char *end = close ? strchr(p + 1, close) : NULL;
                if (end && (!nl || end < nl)) {
                    char name[PATH_MAX], cand[PATH_MAX * 2];
                    snprintf(name, sizeof name, "%.*s", (int)(end - p - 1), p + 1);
                    inc_name = p + 1;
                    inc_len = (size_t)(end - p - 1);
                    bool found = false;
                    if (name[0] == '/') {
                        found = is_file(name);
                        if (found)
                            mix_source(h, name);
                    }
                    if (!found && close == '"') {
                        snprintf(cand, sizeof cand, "%s/%s", d, name);
                        if ((found = is_file(cand)))
                            mix_source(h, cand);
                    }
                    for (size_t i = 0; !found && i < n_inc; i++) {
                        snprintf(cand, sizeof cand, "%s/%s", inc_dirs[i], name);
                        if ((found = is_file(cand)))
                            mix_source(h, cand);
                    }
                }
            }
        }
        folded += mix_line(h, line, line_len, inc_name, inc_len);
        line = nl ? nl + 1 : NULL;
    }
    if (line && (size_t)(line - text) < len) { /* after a NUL byte */
        mix(h, line, len - (size_t)(line - text));
        folded += len - (size_t)(line - text);
    }
    mixs(h, "(end)");
    mix(h, &folded, sizeof folded);
    free(dir);
    free(text);
}

/* Whether argument a is -DNAME=FILE or -DNAME="FILE" with FILE a file (a test's
 * `-DHK_KERNEL_FILE="<work folder>/k.cu"` for an `#include HK_KERNEL_FILE`); FILE, unquoted,
 * into path. */
static bool define_file(const char *a, char *path, size_t size)
{
    const char *eq = !strncmp(a, "-D", 2) ? strchr(a, '=') : NULL;
    if (!eq)
        return false;
    const char *v = eq + 1;
    size_t n = strlen(v);
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        v++;
        n -= 2;
    }
    if (n == 0 || n >= size)
        return false;
    memcpy(path, v, n);
    path[n] = '\0';
    return path[0] == '/' && is_file(path);
}

/* Whether argument a is -IDIR, joined, with DIR a folder. The key holds it as a folder, as
 * it holds "-I" "DIR" (the headers found there count by content, mix_source): the same
 * program with its -I folder in another build folder (build-asan beside build) is the same
 * compile. As text, the block emulator's -I/build/test-tools/emu-pch once made the ASan pass
 * miss every emulation (bench/results/2026-12-05-ci-time-s29-helper.md). */
static bool joined_include_dir(const char *a)
{
    return !strncmp(a, "-I", 2) && a[2] && is_dir(a + 2);
}

/* Folds a program's identity into h: its resolved file, size and mtime (an upgrade changes
 * one of them), or that there is none. */
static void mix_program(hash128 *h, const char *path)
{
    struct stat st;
    char *rr = path ? realpath(path, NULL) : NULL;
    mixs(h, rr ? rr : "(none)");
    if (rr && stat(rr, &st) == 0) {
        long long id[2] = {(long long)st.st_size, (long long)st.st_mtime};
        mix(h, id, sizeof id);
    }
    free(rr);
}

/* The first NAME on PATH, malloc'd, or NULL. */
static char *on_path(const char *name)
{
    const char *path = getenv("PATH");
    char *copy = path ? strdup(path) : NULL;
    char *found = NULL;
    for (char *save = NULL, *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char cand[PATH_MAX];
        snprintf(cand, sizeof cand, "%s/%s", dir, name);
        if (access(cand, X_OK) == 0)
            found = strdup(cand);
    }
    free(copy);
    return found;
}

/* The compiler this stands for: argv0's base name (nvcc, hipcc, or g++: the emulator's
 * host builds, tests/unit/emu_block.h, through test-tools/cxx/g++, which is never on PATH,
 * so nvcc's own calls of g++ do not come here). */
static char *find_real(const char *tool)
{
    bool hip = !strcmp(tool, "hipcc"), cxx = !strcmp(tool, "g++");
    const char *env = getenv(hip ? "HK_REAL_HIPCC" : cxx ? "HK_REAL_CXX" : "HK_REAL_NVCC");
    if (env && *env)
        return strdup(env);
    /* Called by another stand-in (two builds' test-tools folders on PATH): each would find
     * the other first, and they called each other until the process table filled (session
     * 26); the compiler's own place ends the chain. */
    const char *chain = getenv("HK_STANDIN_CHAIN");
    if (chain && !strcmp(chain, tool))
        return strdup(hip ? "/opt/rocm/bin/hipcc" : cxx ? "/usr/bin/g++" : "/usr/local/cuda/bin/nvcc");
    char *self = realpath("/proc/self/exe", NULL);
    const char *path = getenv("PATH");
    char *copy = path ? strdup(path) : NULL;
    char *found = NULL;
    for (char *save = NULL, *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char cand[PATH_MAX];
        snprintf(cand, sizeof cand, "%s/%s", dir, tool);
        char *r = realpath(cand, NULL);
        if (r && access(r, X_OK) == 0 && (!self || strcmp(r, self) != 0))
            found = strdup(cand);
        free(r);
    }
    free(copy);
    free(self);
    if (found)
        return found;
    return strdup(hip ? "/opt/rocm/bin/hipcc" : cxx ? "/usr/bin/g++" : "/usr/local/cuda/bin/nvcc");
}

static bool write_all(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static bool copy_file(const char *from, const char *to)
{
    size_t n = 0;
    char *d = slurp(from, &n);
    if (!d)
        return false;
    bool ok = write_all(to, d, n);
    free(d);
    if (ok) {
        struct stat st;
        if (stat(from, &st) == 0)
            chmod(to, st.st_mode & 0777);
    }
    return ok;
}

/* text with every recorded folder replaced by the current one, written to fd. */
static void replay(int fd, const char *text, size_t n, char **from, char **to, size_t pairs)
{
    size_t i = 0;
    while (i < n) {
        size_t best = pairs;
        for (size_t k = 0; k < pairs; k++) {
            size_t l = strlen(from[k]);
            if (l && i + l <= n && !memcmp(text + i, from[k], l) &&
                (best == pairs || l > strlen(from[best])))
                best = k;
        }
        if (best < pairs) {
            if (write(fd, to[best], strlen(to[best])) < 0)
                return;
            i += strlen(from[best]);
        } else {
            size_t j = i + 1;
            while (j < n && text[j] != '/')
                j++;
            if (write(fd, text + i, j - i) < 0)
                return;
            i = j;
        }
    }
}

static int exec_real(const char *real, char **argv)
{
    argv[0] = (char *)real;
    execv(real, argv);
    fprintf(stderr, "nvcc_cache: cannot run %s: %s\n", real, strerror(errno));
    return 127;
}

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double cpu_s(const struct rusage *ru)
{
    return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
           (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

/* The comm and parent of process pid (from /proc/PID/stat); false if it is gone. */
static bool proc_parent(pid_t pid, char *comm, size_t comm_size, pid_t *ppid)
{
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    char *l = strchr(buf, '('), *r = strrchr(buf, ')'); /* comm may hold spaces or ')' */
    if (!l || !r || r < l)
        return false;
    snprintf(comm, comm_size, "%.*s", (int)(r - l - 1), l + 1);
    int pp = 0;
    if (sscanf(r + 1, " %*c %d", &pp) != 1)
        return false;
    *ppid = (pid_t)pp;
    return true;
}

/* Which test asked for this compile, for the log: HK_TEST_NAME if set, else the process
 * that ctest started (its program's base name, or its script's after an interpreter, with
 * ":WORD" for its first argument that is no path), else the working folder. Written into
 * name (no spaces). */
static void test_name(char *name, size_t size)
{
    const char *env = getenv("HK_TEST_NAME");
    if (env && *env) {
        snprintf(name, size, "%s", env);
        goto out;
    }
    char comm[64];
    pid_t pid = getppid(), ppid = 0;
    for (int depth = 0; depth < 32 && pid > 1 && proc_parent(pid, comm, sizeof comm, &ppid);
         depth++) {
        char pcomm[64];
        pid_t unused;
        if (proc_parent(ppid, pcomm, sizeof pcomm, &unused) && !strcmp(pcomm, "ctest")) {
            char p[64], args[4096];
            snprintf(p, sizeof p, "/proc/%d/cmdline", (int)pid);
            int fd = open(p, O_RDONLY);
            ssize_t n = fd >= 0 ? read(fd, args, sizeof args - 1) : -1;
            if (fd >= 0)
                close(fd);
            if (n <= 0)
                break;
            args[n] = '\0';
            const char *a0 = args, *a1 = args + strlen(args) + 1;
            const char *b0 = strrchr(a0, '/') ? strrchr(a0, '/') + 1 : a0;
            bool interp = !strncmp(b0, "python", 6) || !strcmp(b0, "bash") ||
                          !strcmp(b0, "sh") || !strcmp(b0, "nvim") || !strcmp(b0, "node");
            const char *pick = interp && a1 < args + n ? a1 : a0;
            snprintf(name, size, "%s", strrchr(pick, '/') ? strrchr(pick, '/') + 1 : pick);
            /* a script that several tests run with different words (vscode.sh package|test,
             * nvim/run.sh HKLS features|diagnostics): its first argument that is no path */
            for (const char *a = pick + strlen(pick) + 1; a < args + n; a += strlen(a) + 1)
                if (*a && !strchr(a, '/') && *a != '-') {
                    size_t used = strlen(name);
                    snprintf(name + used, size - used, ":%s", a);
                    break;
                }
            goto out;
        }
        pid = ppid;
    }
    if (!getcwd(name, size))
        snprintf(name, size, "-");
out:
    for (char *c = name; *c; c++)
        if (*c == ' ' || *c == '\t' || *c == '\n')
            *c = '_';
}

/* One line for HK_NVCC_LOG, if set: kind, wall and CPU seconds, key, the test that asked
 * (test_name()), command line. Written with one write() on an O_APPEND file so that lines
 * of concurrent calls do not mix. */
static void log_call(const char *kind, double wall, double cpu, const char *key, int argc,
                     char **argv)
{
    const char *path = getenv("HK_NVCC_LOG");
    if (!path || !*path)
        return;
    char line[16384], who[PATH_MAX];
    test_name(who, sizeof who);
    int n = snprintf(line, sizeof line, "%s %.2f %.2f %s %s", kind, wall, cpu, key, who);
    for (int i = 1; i < argc && n > 0 && (size_t)n < sizeof line - 2; i++)
        n += snprintf(line + n, sizeof line - (size_t)n - 2, " %s", argv[i]);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) < 0) {
            /* a measurement aid: a lost line changes no compile */
        }
        close(fd);
    }
}

/* The extension of an output path, as the key holds it: after the base name's last dot,
 * where an all-digit one is dropped first (and so on), then a ".tmp": a temporary name made
 * unique by a process id, written before a rename to the real name, is the same compile
 * whatever the id and as the real name's ("bench.tmp.4436" -> "", as "bench";
 * measure.c's "hk_launcher_rt.o.tmp.4436" -> ".o", as the "hk_launcher_rt.o" that
 * test_engine_harness builds with the same argv: one compile of the launchers' runtime
 * where there were two). A static buffer. */
static const char *out_extension(const char *path)
{
    static char base[NAME_MAX + 1];
    const char *slash = strrchr(path, '/');
    snprintf(base, sizeof base, "%s", slash ? slash + 1 : path);
    bool tmp_dropped = false;
    for (char *dot = strrchr(base, '.'); dot; dot = strrchr(base, '.')) {
        size_t digits = strspn(dot + 1, "0123456789");
        if (digits > 0 && dot[1 + digits] == '\0' && !tmp_dropped) {
            *dot = '\0';
            continue;
        }
        if (!tmp_dropped && strcmp(dot, ".tmp") == 0) {
            *dot = '\0';
            tmp_dropped = true;
            continue;
        }
        return dot;
    }
    return "";
}

/* -save-temps=obj: the files the compiler leaves beside the output (clang names them after
 * the source: SOURCE_STEM-hip-amdgcn-amd-amdhsa-ARCH.s, ...-host-...), those of out_dir whose
 * name begins with the stem of a file argument and a '-' and that were written from t0 on:
 * copied into entry_tmp/temps/ (a miss). False if one could not be kept. */
static bool save_temps(const char *out_dir, char **stems, size_t n_stems, double t0,
                       const char *entry_tmp)
{
    DIR *d = opendir(out_dir);
    if (!d)
        return false;
    char to[2 * PATH_MAX + NAME_MAX], from[PATH_MAX + NAME_MAX + 2];
    snprintf(to, sizeof to, "%s/temps", entry_tmp);
    bool ok = mkdir(to, 0755) == 0;
    for (struct dirent *e; ok && (e = readdir(d));) {
        bool named = false;
        for (size_t i = 0; i < n_stems && !named; i++)
            named = !strncmp(e->d_name, stems[i], strlen(stems[i])) &&
                    e->d_name[strlen(stems[i])] == '-';
        struct stat st;
        snprintf(from, sizeof from, "%s/%s", out_dir, e->d_name);
        if (!named || stat(from, &st) != 0 || !S_ISREG(st.st_mode) ||
            (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9 < t0 - 0.01)
            continue;
        snprintf(to, sizeof to, "%s/temps/%s", entry_tmp, e->d_name);
        ok = copy_file(from, to);
    }
    closedir(d);
    return ok;
}

/* A hit's -save-temps=obj files (save_temps()) written into out_dir: a text file (no NUL
 * byte) with the recorded folders replaced by the current ones, as replay() does for
 * messages (clang's assembly names the source and its folder); a binary one as kept.
 * False if one could not be written. */
static bool restore_temps(const char *entry, const char *out_dir, char **was, char **now_dirs,
                          size_t pairs)
{
    char dir[PATH_MAX + 8], from[PATH_MAX + NAME_MAX + 10], to[PATH_MAX + NAME_MAX + 2];
    snprintf(dir, sizeof dir, "%s/temps", entry);
    DIR *d = opendir(dir);
    if (!d)
        return true; /* none kept */
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
        snprintf(to, sizeof to, "%s/%s", out_dir, e->d_name);
        size_t n = 0;
        char *t = slurp(from, &n);
        if (!t) {
            ok = false;
            break;
        }
        if (memchr(t, '\0', n)) {
            ok = copy_file(from, to);
        } else {
            int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            ok = fd >= 0;
            if (ok) {
                replay(fd, t, n, was, now_dirs, pairs);
                ok = close(fd) == 0;
            }
        }
        free(t);
    }
    closedir(d);
    return ok;
}

/* mkdir -p path. The cache folder lies under a test run's folder (./hk test's
 * build/hk-test-cache/nvcc) that nothing may have made yet when the first compile comes:
 * in a fresh clone, every compile before the first launcher build (measure.c makes the
 * run's folder) used to run uncached and unlogged. */
static void mkdir_parents(const char *path)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    mkdir(p, 0755);
}

/* The compiler run as a child, waited for and logged (HK_NVCC_LOG): a compile the cache
 * passes on, where the log wants its time. Without the log, exec_real(). */
static int run_direct(const char *real, int argc, char **argv)
{
    const char *log = getenv("HK_NVCC_LOG");
    if (!log || !*log)
        return exec_real(real, argv);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return exec_real(real, argv);
    if (pid == 0)
        _exit(exec_real(real, argv));
    int ws = 0;
    struct rusage ru = {0};
    while (wait4(pid, &ws, 0, &ru) < 0 && errno == EINTR)
        ;
    log_call("direct", now_s() - t0, cpu_s(&ru), "-", argc, argv);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
}

int main(int argc, char **argv)
{
    char *a0 = strdup(argv[0]);
    const char *tool = basename(a0);
    char *real = find_real(tool);
    setenv("HK_STANDIN_CHAIN", tool, 1);   /* what real runs is the compiler, never a stand-in */
    const char *cache = getenv("HK_NVCC_CACHE");
    int out_i = -1;
    bool plain = cache && *cache == '/', temps = false;
    for (int i = 1; plain && i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") && i + 1 < argc)
            out_i = ++i;
        else if (!strcmp(a, "-I") && i + 1 < argc) {
            if (n_inc < MAX_INCLUDE_DIRS)
                inc_dirs[n_inc++] = argv[i + 1];
            i++;
        } else if (!strncmp(a, "-I", 2) && n_inc < MAX_INCLUDE_DIRS)
            inc_dirs[n_inc++] = a + 2;
        else if (!strcmp(a, "-save-temps=obj"))
            temps = true;
        else if (!strcmp(a, "-") || !strncmp(a, "-M", 2) || !strncmp(a, "--generate-dep", 14) ||
                 !strcmp(a, "-keep") || !strcmp(a, "--keep") || !strncmp(a, "-save-temps", 11) ||
                 !strcmp(a, "-odir") || !strcmp(a, "--output-directory") || !strcmp(a, "-run") ||
                 !strcmp(a, "--run") || !strcmp(a, "-dryrun") || !strcmp(a, "--dryrun") ||
                 !strncmp(a, "--output-file", 13) || !strcmp(a, "-E"))
            plain = false;
    }
    if (!plain || out_i < 0)
        return cache ? run_direct(real, argc, argv) : exec_real(real, argv);
    /* "-o -" (PTX on stdout, as a test reads it through a pipe): no output file to keep */
    bool to_stdout = !strcmp(argv[out_i], "-");
    if (temps && to_stdout)
        return run_direct(real, argc, argv); /* no output folder for the temporaries */
    /* -save-temps=obj: the output's folder, where they go, and the stems of the file
     * arguments, which name them */
    char *out_dir = NULL, *stems[64];
    size_t n_stems = 0;
    if (temps) {
        char *o = strdup(argv[out_i]);
        out_dir = o ? realpath(dirname(o), NULL) : NULL;
        free(o);
        if (!out_dir)
            return run_direct(real, argc, argv);
        for (int i = 1; i < argc && n_stems < 64; i++)
            if (i != out_i && is_file(argv[i])) {
                const char *b = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
                char *stem = strdup(b);
                if (stem && strrchr(stem, '.'))
                    *strrchr(stem, '.') = '\0';
                if (stem)
                    stems[n_stems++] = stem;
            }
    }

    /* the folders of the file arguments, as now (replay() maps the recorded ones to them) */
    char def[PATH_MAX];
    for (int i = 1; i < argc && n_now < 128; i++)
        if (define_file(argv[i], def, sizeof def)) {
            char *abs = realpath(dirname(def), NULL);
            if (abs)
                now[n_now++] = abs;
        } else if (joined_include_dir(argv[i])) {
            char *abs = realpath(argv[i] + 2, NULL);
            if (abs)
                now[n_now++] = abs;
        } else if ((i == out_i && !to_stdout) || is_file(argv[i]) || is_dir(argv[i])) {
            char *c = strdup(argv[i]);
            char *abs = realpath(i == out_i || is_file(argv[i]) ? dirname(c) : argv[i], NULL);
            free(c);
            if (abs)
                now[n_now++] = abs;
        }

    hash128 h = {0xCBF29CE484222325ull, 0x84222325CBF29CE4ull};
    mix_program(&h, real);
    /* nvcc's host compiler (hipcc's clang comes with it): a cache kept between runs must
     * not answer for another gcc */
    for (size_t i = 0; i < 2; i++) {
        char *host = on_path(i ? "g++" : "gcc");
        mix_program(&h, host);
        free(host);
    }
    mixs(&h, tool);
    for (int i = 1; i < argc; i++) {
        if (i == out_i) {
            mixs(&h, to_stdout ? "(stdout)" : "(out)");
            mixs(&h, out_extension(argv[i]));
        } else if (define_file(argv[i], def, sizeof def)) {
            /* the macro names a file that the source includes through it: that file's
             * content, and its name as an absolute include's (mix_line) */
            mix(&h, argv[i], (size_t)(strchr(argv[i], '=') + 1 - argv[i]));
            mixs(&h, "(define-file)");
            long k = now_dir_of(def, strlen(def));
            mix(&h, &k, sizeof k);
            mixs(&h, strrchr(def, '/') + 1);
            mix_source(&h, def);
        } else if (joined_include_dir(argv[i])) {
            mixs(&h, "-I(dir)"); /* the headers found there are folded by content */
        } else if (is_file(argv[i])) {
            mixs(&h, "(file)");
            mix_source(&h, argv[i]);
        } else if (is_dir(argv[i])) {
            mixs(&h, "(dir)");
        } else {
            mixs(&h, argv[i]);
        }
    }
    char key[40];
    snprintf(key, sizeof key, "%016llx%016llx", (unsigned long long)h.a, (unsigned long long)h.b);
    char entry[PATH_MAX], p[2 * PATH_MAX];
    snprintf(entry, sizeof entry, "%s/%s", cache, key);

    snprintf(p, sizeof p, "%s/status", entry);
    size_t n = 0;
    char *status = slurp(p, &n);
    if (status) {
        int rc = atoi(status);
        free(status);
        snprintf(p, sizeof p, "%s/dirs", entry);
        char *dirs = slurp(p, &n);
        char *was[128];
        size_t n_was = 0;
        for (char *s = NULL, *t = dirs ? strtok_r(dirs, "\n", &s) : NULL; t && n_was < 128;
             t = strtok_r(NULL, "\n", &s))
            was[n_was++] = t;
        bool ok = n_was == n_now;
        snprintf(p, sizeof p, "%s/out", entry);
        if (ok && rc == 0 && !to_stdout)
            ok = copy_file(p, argv[out_i]);
        if (ok && temps)
            ok = restore_temps(entry, out_dir, was, now, n_now);
        if (ok) {
            const char *names[2] = {"stdout", "stderr"};
            for (int k = 0; k < 2; k++) {
                snprintf(p, sizeof p, "%s/%s", entry, names[k]);
                char *t = slurp(p, &n);
                if (t)
                    replay(k ? 2 : 1, t, n, was, now, n_now);
                free(t);
            }
            log_call("hit", 0, 0, key, argc, argv);
            /* the entry's folder dated by its last use: a cache kept between runs
             * (HK_TEST_CACHE, .ci/run) drops entries no run has used for days */
            if (utimensat(AT_FDCWD, entry, NULL, 0) != 0) {
                /* best effort: an undated entry is only dropped sooner */
            }
            return rc;
        }
        free(dirs);
    }

    /* a miss: run the compiler with its output into files, then pass them on and keep it */
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/tmp.%d.XXXXXX", cache, (int)getpid());
    mkdir_parents(cache);
    if (!mkdtemp(tmp))
        return run_direct(real, argc, argv); /* uncached, but logged */
    char outp[PATH_MAX + 16], errp[PATH_MAX + 16];
    snprintf(outp, sizeof outp, "%s/stdout", tmp);
    snprintf(errp, sizeof errp, "%s/stderr", tmp);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0)
        return exec_real(real, argv);
    if (pid == 0) {
        int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(127);
        _exit(exec_real(real, argv));
    }
    int ws = 0;
    struct rusage ru = {0};
    while (wait4(pid, &ws, 0, &ru) < 0 && errno == EINTR)
        ;
    log_call("miss", now_s() - t0, cpu_s(&ru), key, argc, argv);
    int rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    for (int k = 0; k < 2; k++) {
        char *t = slurp(k ? errp : outp, &n);
        if (t && n && write(k ? 2 : 1, t, n) < 0)
            rc = rc ? rc : 1;
        free(t);
    }
    bool keep = WIFEXITED(ws);
    if (keep && rc == 0 && !to_stdout) {
        snprintf(p, sizeof p, "%s/out", tmp);
        keep = copy_file(argv[out_i], p);
    }
    if (keep && temps)
        keep = save_temps(out_dir, stems, n_stems, t0, tmp);
    if (keep) {
        char num[32], dirs[PATH_MAX * 8] = "";
        snprintf(num, sizeof num, "%d\n", rc);
        for (size_t i = 0; i < n_now; i++)
            if (strlen(dirs) + strlen(now[i]) + 2 < sizeof dirs) {
                strcat(dirs, now[i]);
                strcat(dirs, "\n");
            }
        snprintf(p, sizeof p, "%s/dirs", tmp);
        keep = write_all(p, dirs, strlen(dirs));
        snprintf(p, sizeof p, "%s/status", tmp);
        /* status last: an entry without it is never read */
        keep = keep && write_all(p, num, strlen(num));
    }
    if (!keep || rename(tmp, entry) != 0) {
        char cmd[PATH_MAX + 80];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0) {
            /* a leftover tmp folder costs only space */
        }
    }
    return rc;
}
