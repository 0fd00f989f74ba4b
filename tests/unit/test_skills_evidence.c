/* Skills' evidence regexes against real machine code: for each line of
 * tests/data/skills/after/EVIDENCE, the naive kernel and its hand-written rewrite are
 * compiled for the skill's arch and disassembled (nvcc -cubin + cuobjdump -sass for
 * NVIDIA; hipcc --genco + clang-offload-bundler + llvm-objdump for gfx9), and
 * sk_evidence_found must see the skill's evidence in the rewrite and not in the naive
 * kernel. Needs no GPU; a toolchain that is missing here skips its lines (cuobjdump is
 * on the GPU machine, not on the CPU machines; hipcc is installed per RECIPES.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hk.h"
#include "skills/skills.h"

extern char **environ;

#define DATA HK_TEST_DATA "/skills"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = '\0';
    fclose(f);
    return b;
}

/* First of names found as an executable: absolute, else on PATH, else in extra_dir.
 * Returns a static buffer or NULL. */
static const char *find_tool(const char *const *names, const char *extra_dir)
{
    static char path[1024];
    for (size_t i = 0; names[i]; i++) {
        const char *env_path = getenv("PATH");
        char dirs[4096];
        snprintf(dirs, sizeof dirs, "%s:%s", env_path ? env_path : "/usr/bin",
                 extra_dir ? extra_dir : "");
        char *save = NULL;
        for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            snprintf(path, sizeof path, "%s/%s", d, names[i]);
            if (access(path, X_OK) == 0)
                return path;
        }
    }
    return NULL;
}

/* Runs argv with stdout to out_path (NULL: /dev/null) and stderr to /dev/null; returns
 * the exit status (or -1). */
static int run(char *const argv[], const char *out_path)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path ? out_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return -1;
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct tools {
    char nvcc[1024], cuobjdump[1024];
    char hipcc[1024], bundler[1024], objdump[1024];
    bool nvidia, amd;
};

static void find_tools(struct tools *t)
{
    memset(t, 0, sizeof *t);
    static const char *const nvcc[] = {"nvcc", NULL};
    static const char *const cuobjdump[] = {"cuobjdump", NULL};
    static const char *const hipcc[] = {"hipcc", NULL};
    static const char *const bundler[] = {"clang-offload-bundler-15", "clang-offload-bundler", NULL};
    static const char *const objdump[] = {"llvm-objdump-15", "llvm-objdump", NULL};
    const char *p;
    if ((p = find_tool(nvcc, "/usr/local/cuda/bin")))
        snprintf(t->nvcc, sizeof t->nvcc, "%s", p);
    if ((p = find_tool(cuobjdump, "/usr/local/cuda/bin")))
        snprintf(t->cuobjdump, sizeof t->cuobjdump, "%s", p);
    if ((p = find_tool(hipcc, "/opt/rocm/bin")))
        snprintf(t->hipcc, sizeof t->hipcc, "%s", p);
    if ((p = find_tool(bundler, "/opt/rocm/llvm/bin")))
        snprintf(t->bundler, sizeof t->bundler, "%s", p);
    if ((p = find_tool(objdump, "/opt/rocm/llvm/bin")))
        snprintf(t->objdump, sizeof t->objdump, "%s", p);
    t->nvidia = t->nvcc[0] && t->cuobjdump[0];
    t->amd = t->hipcc[0] && t->bundler[0] && t->objdump[0];
}

/* Machine code of src for arch as text (malloc), or NULL when a step failed. */
static char *disassemble(const struct tools *t, const char *src, const char *arch,
                         const char *tmp)
{
    char obj[600], out[600], text[600];
    snprintf(obj, sizeof obj, "%s/k.bin", tmp);
    snprintf(out, sizeof out, "%s/k.o", tmp);
    snprintf(text, sizeof text, "%s/k.txt", tmp);
    if (!strncmp(arch, "sm_", 3)) {
        char archflag[64];
        snprintf(archflag, sizeof archflag, "-arch=%s", arch);
        char *cc[] = {(char *)t->nvcc, archflag, "-cubin", "-o", obj, (char *)src, NULL};
        if (run(cc, NULL) != 0)
            return NULL;
        char *dis[] = {(char *)t->cuobjdump, "-sass", obj, NULL};
        if (run(dis, text) != 0)
            return NULL;
    } else {
        char archflag[64], target[128], in_arg[640], out_arg[640], mcpu[64];
        snprintf(archflag, sizeof archflag, "--offload-arch=%s", arch);
        /* The naive samples are .cu files written for CUDA: compile them as HIP. */
        bool is_cu = strlen(src) > 3 && !strcmp(src + strlen(src) - 3, ".cu");
        char *cc_cu[] = {(char *)t->hipcc, "--genco", archflag, "-x", "hip", "-include",
                         "hip/hip_runtime.h", (char *)src, "-o", obj, NULL};
        char *cc_hip[] = {(char *)t->hipcc, "--genco", archflag, (char *)src, "-o", obj, NULL};
        if (run(is_cu ? cc_cu : cc_hip, NULL) != 0)
            return NULL;
        snprintf(target, sizeof target, "--targets=hipv4-amdgcn-amd-amdhsa--%s", arch);
        snprintf(in_arg, sizeof in_arg, "--input=%s", obj);
        snprintf(out_arg, sizeof out_arg, "--output=%s", out);
        char *unb[] = {(char *)t->bundler, "--unbundle", "--type=o", target, in_arg, out_arg, NULL};
        if (run(unb, NULL) != 0)
            return NULL;
        snprintf(mcpu, sizeof mcpu, "--mcpu=%s", arch);
        char *dis[] = {(char *)t->objdump, "-d", mcpu, out, NULL};
        if (run(dis, text) != 0)
            return NULL;
    }
    return read_text(text);
}

/* The gfx9 pairs' compiles in one hipcc run (issue 14: CI time; each hipcc --genco is ~2 s
 * of CPU, most of it the toolchain and its headers): every source of the list becomes
 * namespace hk_ev_K of one translation unit (after one #include <hip/hip_runtime.h>, its
 * own macros undefined after it), and the disassembly is split per function: source K's
 * machine code is every function whose mangled name is in namespace hk_ev_K, the same
 * functions its own compile holds. A source with another #include, or that declares
 * extern "C" (no namespace in its names), is compiled alone; so is every source when
 * the batch fails to compile or disassemble (the per-source path then names the one
 * that fails). */
#define EV_MAX 64

struct ev_batch {
    char path[EV_MAX][512];
    char *code[EV_MAX];   /* machine code per source (malloc'd); NULL: compile it alone */
    size_t n;
};

/* Whether src can share the batch: no #include but <hip/hip_runtime.h>, no extern "C". */
static bool ev_batchable(const char *text)
{
    if (strstr(text, "extern \"C\""))
        return false;
    for (const char *line = text; line && *line;) {
        const char *q = line;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '#') {
            q++;
            while (*q == ' ' || *q == '\t')
                q++;
            const char *h = "<hip/hip_runtime.h>";
            if (!strncmp(q, "include", 7)) {
                q += 7;
                while (*q == ' ' || *q == '\t')
                    q++;
                if (strncmp(q, h, strlen(h)))
                    return false;
            }
        }
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    return true;
}

/* The index of path in b, added when new (NULL path table full: fails the test). */
static size_t ev_index(struct ev_batch *b, const char *path)
{
    for (size_t i = 0; i < b->n; i++)
        if (!strcmp(b->path[i], path))
            return i;
    assert_true(b->n < EV_MAX);
    snprintf(b->path[b->n], sizeof b->path[b->n], "%s", path);
    b->code[b->n] = NULL;
    return b->n++;
}

/* Writes the batch source of b's batchable sources to out; which[i] says whether source i
 * is in it. False when none is. */
static bool ev_write_batch(const struct ev_batch *b, const char *out, bool *which)
{
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    fprintf(f, "#include <hip/hip_runtime.h>\n");
    size_t n_in = 0;
    for (size_t i = 0; i < b->n; i++) {
        char *text = read_text(b->path[i]);
        assert_non_null(text);
        which[i] = ev_batchable(text);
        if (which[i]) {
            n_in++;
            fprintf(f, "namespace hk_ev_%zu {\n#line 1 \"%s\"\n%s\n}\n", i, b->path[i], text);
            for (const char *line = text; line && *line;) {
                const char *q = line;
                while (*q == ' ' || *q == '\t')
                    q++;
                if (*q == '#') {
                    q++;
                    while (*q == ' ' || *q == '\t')
                        q++;
                    if (!strncmp(q, "define", 6)) {
                        q += 6;
                        while (*q == ' ' || *q == '\t')
                            q++;
                        size_t ml = strspn(q, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789_");
                        if (ml)
                            fprintf(f, "#undef %.*s\n", (int)ml, q);
                    }
                }
                const char *nl = strchr(line, '\n');
                line = nl ? nl + 1 : NULL;
            }
        }
        free(text);
    }
    assert_int_equal(fclose(f), 0);
    return n_in > 0;
}

/* Source k's functions out of the batch's disassembly: the blocks of llvm-objdump -d whose
 * label (a line "ADDRESS <NAME>:") names a function of namespace hk_ev_K. malloc'd. */
static char *ev_split(const char *dis, size_t k)
{
    char key[64];
    int kl = snprintf(key, sizeof key, "hk_ev_%zu", k);
    char mangled[80];
    snprintf(mangled, sizeof mangled, "N%d%s", kl, key);   /* _ZN7hk_ev_0... */
    size_t cap = strlen(dis) + 1, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    bool in = false;
    for (const char *line = dis; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t ll = nl ? (size_t)(nl - line) + 1 : strlen(line);
        const char *lt = memchr(line, '<', ll), *gt = memchr(line, '>', ll);
        if (line[0] != ' ' && line[0] != '\t' && line[0] != '\n') {
            /* a line of its own (a label, a section's title): a label "ADDRESS <NAME>:"
             * opens a function that is source k's or not; anything else ends one. The
             * mangled names' lengths keep hk_ev_1 from matching hk_ev_10 (N7... vs N8...) */
            in = false;
            if (lt && gt && gt > lt && (nl ? nl[-1] == ':' : line[ll - 1] == ':')) {
                char name[1024];
                size_t nn = (size_t)(gt - lt - 1);
                snprintf(name, sizeof name, "%.*s", (int)(nn < sizeof name ? nn : sizeof name - 1), lt + 1);
                in = strstr(name, mangled) != NULL;
            }
        }
        if (in) {
            memcpy(out + len, line, ll);
            len += ll;
        }
        line = nl ? nl + 1 : NULL;
    }
    out[len] = '\0';
    return out;
}

/* Compiles b's batchable sources for arch in one hipcc run and fills their code; leaves
 * every code NULL (each compiled alone) when a step fails. */
static void ev_compile_batch(const struct tools *t, struct ev_batch *b, const char *arch, const char *tmp)
{
    char src[600], obj[600], out[600], text[600];
    snprintf(src, sizeof src, "%s/batch.hip", tmp);
    snprintf(obj, sizeof obj, "%s/batch.bin", tmp);
    snprintf(out, sizeof out, "%s/batch.o", tmp);
    snprintf(text, sizeof text, "%s/batch.txt", tmp);
    bool which[EV_MAX];
    if (!ev_write_batch(b, src, which))
        return;
    char archflag[64], target[128], in_arg[640], out_arg[640], mcpu[64];
    snprintf(archflag, sizeof archflag, "--offload-arch=%s", arch);
    char *cc[] = {(char *)t->hipcc, "--genco", archflag, src, "-o", obj, NULL};
    snprintf(target, sizeof target, "--targets=hipv4-amdgcn-amd-amdhsa--%s", arch);
    snprintf(in_arg, sizeof in_arg, "--input=%s", obj);
    snprintf(out_arg, sizeof out_arg, "--output=%s", out);
    char *unb[] = {(char *)t->bundler, "--unbundle", "--type=o", target, in_arg, out_arg, NULL};
    snprintf(mcpu, sizeof mcpu, "--mcpu=%s", arch);
    char *dis[] = {(char *)t->objdump, "-d", mcpu, out, NULL};
    char *all = NULL;
    if (run(cc, NULL) != 0 || run(unb, NULL) != 0 || run(dis, text) != 0 || !(all = read_text(text))) {
        print_message("note: the batch of %zu sources for %s failed; each is compiled alone\n", b->n, arch);
    } else {
        for (size_t i = 0; i < b->n; i++)
            if (which[i]) {
                b->code[i] = ev_split(all, i);
                if (!b->code[i][0]) {
                    /* no function of it found: its own compile decides, never an empty text */
                    print_message("note: no function of %s in the batch; compiled alone\n", b->path[i]);
                    free(b->code[i]);
                    b->code[i] = NULL;
                }
            }
    }
    free(all);
    const char *leftovers[] = {src, obj, out, text};
    for (size_t i = 0; i < HK_ARRAY_LEN(leftovers); i++)
        unlink(leftovers[i]);
}

/* Source path's machine code: the batch's split when it has one (a copy), else its own
 * compile (disassemble). */
static char *ev_code(const struct tools *t, struct ev_batch *b, const char *path, const char *arch,
                     const char *tmp)
{
    if (strncmp(arch, "sm_", 3)) {
        for (size_t i = 0; i < b->n; i++)
            if (!strcmp(b->path[i], path) && b->code[i]) {
                char *c = strdup(b->code[i]);
                assert_non_null(c);
                return c;
            }
    }
    return disassemble(t, path, arch, tmp);
}

static void evidence_appears_in_rewrites(void **state)
{
    (void)state;
    struct tools t;
    find_tools(&t);
    char err[8192];
    sk_set *set = NULL;
    if (sk_load_dir(HK_SOURCE_DIR "/skills", &set, err, sizeof err) != HK_OK)
        fail_msg("shipped skills do not load: %s", err);
    char *list = read_text(DATA "/after/EVIDENCE");
    assert_non_null(list);
    char tmp[] = "/tmp/hk-skills-ev-XXXXXX";
    assert_non_null(mkdtemp(tmp));

    /* Every shipped skill with a SASS/ISA regex has a pair to prove it on. */
    size_t n = sk_set_count(set);
    for (size_t i = 0; i < n; i++) {
        const sk_skill *sk = sk_set_at(set, i);
        char key[128];
        snprintf(key, sizeof key, "\n%s ", sk->id);
        if (sk->evidence_sass && !strstr(list, key))
            fail_msg("skill %s has evidence.sass but no line in after/EVIDENCE", sk->id);
    }

    /* The gfx9 sources, compiled in one batch first (ev_compile_batch). */
    static struct ev_batch batch;
    batch.n = 0;
    if (t.amd) {
        char *copy = strdup(list), *save2 = NULL;
        assert_non_null(copy);
        for (char *line = strtok_r(copy, "\n", &save2); line; line = strtok_r(NULL, "\n", &save2)) {
            char id[128], before[256], after[256], p[512];
            if (line[0] == '#' || sscanf(line, "%127s %255s %255s", id, before, after) != 3)
                continue;
            const sk_skill *sk = sk_get(set, id);
            if (!sk || strcmp(sk->hardware_dir, "nvidia-sm90") == 0 ||
                strcmp(sk->hardware_dir, "nvidia-sm80") == 0)
                continue;
            snprintf(p, sizeof p, DATA "/%s", before);
            ev_index(&batch, p);
            snprintf(p, sizeof p, DATA "/%s", after);
            ev_index(&batch, p);
        }
        free(copy);
        ev_compile_batch(&t, &batch, "gfx906", tmp);
    }

    size_t checked = 0, skipped = 0;
    char *save = NULL;
    for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0])
            continue;
        char id[128], before[256], after[256];
        if (sscanf(line, "%127s %255s %255s", id, before, after) != 3)
            fail_msg("after/EVIDENCE: bad line: %s", line);
        const sk_skill *sk = sk_get(set, id);
        if (!sk || !sk->evidence_sass)
            fail_msg("after/EVIDENCE: %s is not a shipped skill with evidence.sass", id);
        const char *arch = !strcmp(sk->hardware_dir, "nvidia-sm90")   ? "sm_90"
                           : !strcmp(sk->hardware_dir, "nvidia-sm80") ? "sm_80"
                                                                      : "gfx906";
        bool nvidia = !strncmp(arch, "sm_", 3);
        if ((nvidia && !t.nvidia) || (!nvidia && !t.amd)) {
            skipped++;
            continue;
        }
        char bpath[512], apath[512];
        snprintf(bpath, sizeof bpath, DATA "/%s", before);
        snprintf(apath, sizeof apath, DATA "/%s", after);
        char *bt = ev_code(&t, &batch, bpath, arch, tmp);
        if (!bt)
            fail_msg("%s: %s does not compile/disassemble for %s", id, bpath, arch);
        char *at = ev_code(&t, &batch, apath, arch, tmp);
        if (!at)
            fail_msg("%s: %s does not compile/disassemble for %s", id, apath, arch);
        size_t nb = 0, na = 0;
        assert_int_equal(sk_evidence_sass_count(sk, bt, &nb), HK_OK);
        assert_int_equal(sk_evidence_sass_count(sk, at, &na), HK_OK);
        bool found = false;
        const char *what = NULL;
        assert_int_equal(sk_evidence_found(sk, bt, at, NULL, NULL, &found, &what), HK_OK);
        if (!found)
            fail_msg("%s: /%s/ matches %zu lines of the rewrite's %s code and %zu of the naive "
                     "kernel's: no evidence", id, sk->evidence_sass, na, arch, nb);
        assert_string_equal(what, "sass");
        /* Backwards it is not evidence. */
        assert_int_equal(sk_evidence_found(sk, at, bt, NULL, NULL, &found, &what), HK_OK);
        assert_false(found);
        print_message("%-30s %-7s /%s/: %zu -> %zu lines\n", id, arch, sk->evidence_sass, nb, na);
        free(bt);
        free(at);
        checked++;
    }
    char f[700];
    const char *leftovers[] = {"k.bin", "k.o", "k.txt"};
    for (size_t i = 0; i < HK_ARRAY_LEN(leftovers); i++) {
        snprintf(f, sizeof f, "%s/%s", tmp, leftovers[i]);
        unlink(f);
    }
    rmdir(tmp);
    for (size_t i = 0; i < batch.n; i++)
        free(batch.code[i]);
    free(list);
    sk_set_free(set);
    print_message("evidence checked on %zu pairs, %zu skipped (nvcc+cuobjdump: %s, "
                  "hipcc+bundler+llvm-objdump: %s)\n", checked, skipped,
                  t.nvidia ? "yes" : "no", t.amd ? "yes" : "no");
    if (!checked)
        skip();
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(evidence_appears_in_rewrites),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
