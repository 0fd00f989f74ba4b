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
        char *bt = disassemble(&t, bpath, arch, tmp);
        if (!bt)
            fail_msg("%s: %s does not compile/disassemble for %s", id, bpath, arch);
        char *at = disassemble(&t, apath, arch, tmp);
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
