/* `hkls check` and `hkls doctor` end to end: runs the built binary (HK_BINARY_DIR/hkls,
 * or $HKLS_BIN) on the fixtures in tests/data/compile/ and checks its output and exit
 * codes. Needs nvcc; the .hip case runs when hipcc is installed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/hk.h"

extern char **environ;

static const char *hkls_path(void)
{
    const char *p = getenv("HKLS_BIN");
    return p && *p ? p : HK_BINARY_DIR "/hkls";
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = '\0';
    fclose(f);
    return b;
}

struct run {
    int code;
    char *out;
    char *err;
};

/* Runs hkls with args (NULL-terminated) in the fixtures directory; env_over: extra
 * "NAME=VALUE" entries replacing ours, or NULL. */
static void run_hkls(const char *const *args, const char *const *env_over, struct run *r)
{
    const char *bin = hkls_path();
    if (access(bin, X_OK) != 0)
        fail_msg("%s is not built: run `cmake --build` for the hkls target before ctest", bin);
    char *argv[32];
    size_t n = 0;
    argv[n++] = (char *)bin;
    for (size_t i = 0; args[i] && n < 31; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;

    char *envp[512];
    size_t e = 0;
    for (size_t i = 0; environ[i] && e < 480; i++) {
        bool replaced = false;
        for (size_t k = 0; env_over && env_over[k]; k++) {
            size_t len = strcspn(env_over[k], "=") + 1;
            if (strncmp(environ[i], env_over[k], len) == 0)
                replaced = true;
        }
        if (!replaced)
            envp[e++] = environ[i];
    }
    for (size_t k = 0; env_over && env_over[k] && e < 510; k++)
        envp[e++] = (char *)env_over[k];
    envp[e] = NULL;

    char out_path[] = "/tmp/hk-cli-out-XXXXXX", err_path[] = "/tmp/hk-cli-err-XXXXXX";
    int ofd = mkstemp(out_path), efd = mkstemp(err_path);
    assert_true(ofd >= 0 && efd >= 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, ofd, 1);
    posix_spawn_file_actions_adddup2(&fa, efd, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    /* Relative fixture names keep the output short and predictable. */
    char cwd[1024];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(HK_TEST_DATA "/compile"), 0);
    pid_t pid;
    int rc = posix_spawn(&pid, bin, &fa, NULL, argv, envp);
    assert_int_equal(chdir(cwd), 0);
    posix_spawn_file_actions_destroy(&fa);
    assert_int_equal(rc, 0);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    close(ofd);
    close(efd);
    r->code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    r->out = read_all(out_path);
    r->err = read_all(err_path);
    unlink(out_path);
    unlink(err_path);
    if (strstr(r->err, "unknown command"))
        fail_msg("hkls does not dispatch '%s': server/cli/main.c must call cli_check / "
                 "cli_doctor (server/cli/cli.h)", args[0]);
}

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

static void expect_in(const char *hay, const char *needle)
{
    if (!strstr(hay, needle))
        fail_msg("expected \"%s\" in:\n%s", needle, hay);
}

static void check_prints_kernels(void **state)
{
    struct run r;
    const char *args[] = {"check", "saxpy.cu", "reduce.cu", "dynsmem.cu", NULL};
    run_hkls(args, NULL, &r);
    if (r.code != 0)
        fail_msg("exit %d\n%s\n%s", r.code, r.out, r.err);
    expect_in(r.out, "saxpy.cu [nvidia:sm_90]: ok, 2 kernels");
    expect_in(r.out, "saxpy (line 2): 10 registers, no spills");
    expect_in(r.out, "reduce<256> (line 3): 12 registers, no spills, 1024 B shared");
    expect_in(r.out, "hk::fill (line 20)");
    /* __launch_bounds__(128) gives the block size. */
    expect_in(r.out, "16 blocks/SM x 128 threads (block size from __launch_bounds__)");
    /* Output follows the order of the arguments, whatever finished first. */
    assert_true(strstr(r.out, "saxpy.cu [") < strstr(r.out, "reduce.cu ["));
    assert_true(strstr(r.out, "reduce.cu [") < strstr(r.out, "dynsmem.cu ["));
    run_free(&r);
}

/* hkls check's text report speaks the user's language (issue 14: the CLI's faces): the
 * status line, each kernel's resources and occupancy; the kernel names, the limiter and
 * nvcc's own messages stay as they are. English without a Chinese locale, as above. */
static void check_in_chinese(void **state)
{
    (void)state;
    const char *zh[] = {"LC_ALL=zh_CN.UTF-8", NULL}, *en[] = {"LC_ALL=C", NULL};
    const char *args[] = {"check", "saxpy.cu", "reduce.cu", "dynsmem.cu", "errors.cu", NULL};
    struct run a, b;
    run_hkls(args, zh, &a);
    run_hkls(args, en, &b);
    assert_int_equal(a.code, b.code);
    expect_in(a.out, "saxpy.cu [nvidia:sm_90]: 通过，2 个核函数（");
    expect_in(a.out, "saxpy（第 2 行）：10 个寄存器，无溢出");
    expect_in(a.out, "reduce<256>（第 3 行）：12 个寄存器，无溢出，1024 B 共享内存");
    expect_in(a.out, "占用率 ");
    expect_in(a.out, "16 个线程块/SM × 128 个线程（线程块大小取自 __launch_bounds__），受限于");
    expect_in(a.out, "errors.cu [nvidia:sm_90]: 编译错误（退出码 ");
    expect_in(a.out, "errors.cu:7: error: identifier \"undeclared_thing\" is undefined");
    static const char *const english[] = {"registers", "no spills", "occupancy", "kernels (",
                                          "block size", "limited by", "compile errors"};
    for (size_t i = 0; i < HK_ARRAY_LEN(english); i++)
        if (strstr(a.out, english[i]))
            fail_msg("English \"%s\" left in:\n%s", english[i], a.out);
    expect_in(b.out, "16 blocks/SM x 128 threads (block size from __launch_bounds__), limited by");
    expect_in(b.out, "errors.cu [nvidia:sm_90]: compile errors (exit ");
    run_free(&a);
    run_free(&b);
}

static void check_names_errors_and_fails(void **state)
{
    struct run r;
    const char *args[] = {"check", "errors.cu", "saxpy.cu", NULL};
    run_hkls(args, NULL, &r);
    assert_int_equal(r.code, 1);
    expect_in(r.out, "errors.cu:7: error: identifier \"undeclared_thing\" is undefined");
    expect_in(r.out, "errors.cu:8: error:");
    expect_in(r.out, "saxpy.cu [nvidia:sm_90]: ok");
    run_free(&r);

    /* A ptxas error names no line: it lands on the kernel's definition. */
    const char *args2[] = {"check", "too_much_smem.cu", NULL};
    run_hkls(args2, NULL, &r);
    assert_int_equal(r.code, 1);
    expect_in(r.out, "too_much_smem.cu:2: error: ptxas: Entry function '_Z3bigPf' uses too much");
    run_free(&r);
}

static void check_json_and_flags(void **state)
{
    struct run r;
    const char *args[] = {"check", "--json", "--flag", "-maxrregcount=16", "--block", "128",
                          "heavy.cu", NULL};
    run_hkls(args, NULL, &r);
    assert_int_equal(r.code, 0);
    json_error_t err;
    json_t *root = json_loads(r.out, 0, &err);
    if (!root)
        fail_msg("not JSON (%s):\n%s", err.text, r.out);
    json_t *f = json_array_get(json_object_get(root, "files"), 0);
    assert_string_equal(json_string_value(json_object_get(f, "status")), "ok");
    json_t *k = json_array_get(json_object_get(f, "kernels"), 0);
    assert_string_equal(json_string_value(json_object_get(k, "name")), "heavy");
    assert_true(json_is_true(json_object_get(k, "spills")));
    assert_true(json_integer_value(json_object_get(k, "spill_stores")) > 0);
    assert_int_equal(json_integer_value(json_object_get(k, "registers")), 24);
    json_t *o = json_object_get(k, "occupancy");
    assert_int_equal(json_integer_value(json_object_get(o, "block_threads")), 128);
    assert_string_equal(json_string_value(json_object_get(o, "block_source")), "--block");
    json_decref(root);
    run_free(&r);

    /* -D reaches the compiler: host_error.cu builds only with HK_ARCH_OK. */
    const char *args2[] = {"check", "-D", "HK_ARCH_OK", "host_error.cu", NULL};
    run_hkls(args2, NULL, &r);
    assert_int_equal(r.code, 0);
    run_free(&r);
    const char *args3[] = {"check", "host_error.cu", NULL};
    run_hkls(args3, NULL, &r);
    assert_int_equal(r.code, 1);
    expect_in(r.out, "host_error.cu:4:2: error: #error");
    run_free(&r);
}

static void check_refuses_bad_input(void **state)
{
    struct run r;
    const char *a1[] = {"check", "no_such_file.cu", NULL};
    run_hkls(a1, NULL, &r);
    assert_int_equal(r.code, 2);
    expect_in(r.out, "no_such_file.cu [nvidia:sm_90]: not checked: cannot read");
    run_free(&r);
    const char *a2[] = {"check", "--target", "nvidia:gfx906", "saxpy.cu", NULL};
    run_hkls(a2, NULL, &r);
    assert_int_equal(r.code, 2);
    expect_in(r.err, "bad target");
    run_free(&r);
    const char *a3[] = {"check", NULL};
    run_hkls(a3, NULL, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
    const char *a4[] = {"check", "--compiler", "/nonexistent/nvcc", "saxpy.cu", NULL};
    run_hkls(a4, NULL, &r);
    assert_int_equal(r.code, 2);
    expect_in(r.out, "not checked: nvcc not found");
    run_free(&r);
    const char *a5[] = {"check", "--bogus", "saxpy.cu", NULL};
    run_hkls(a5, NULL, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
}

/* Issue 15: a binary file renamed to .cu is refused before nvcc sees it (no pages of
 * warnings), as is invalid UTF-8; an arch nvcc does not know is a bad argument. */
static void check_refuses_binary_and_unknown_arch(void **state)
{
    char dir[] = "/tmp/hk-check-bin-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char bin[64], latin1[64];
    snprintf(bin, sizeof bin, "%s/blob.cu", dir);
    snprintf(latin1, sizeof latin1, "%s/latin1.cu", dir);
    FILE *f = fopen(bin, "wb");
    assert_non_null(f);
    /* an ELF header, then bytes nvcc would warn about line after line */
    static const unsigned char elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0};
    assert_int_equal(fwrite(elf, 1, sizeof elf, f), sizeof elf);
    for (int i = 0; i < 4096; i++)
        fputc((i * 37) & 0xff, f);
    assert_int_equal(fclose(f), 0);
    f = fopen(latin1, "wb");
    assert_non_null(f);
    fputs("__global__ void k(float *x) { x[0] = 1.0f; }\n// caf\xe9\n", f);
    assert_int_equal(fclose(f), 0);

    struct run r;
    const char *a1[] = {"check", bin, NULL};
    run_hkls(a1, NULL, &r);
    assert_int_equal(r.code, 2);
    expect_in(r.out, "blob.cu is not a text file (a NUL byte at byte 7)");
    assert_null(strstr(r.out, "warning"));
    assert_null(strstr(r.err, "warning"));
    run_free(&r);
    /* hkls check's own sentence in the user's language (the JSON keeps the English) */
    const char *zh[] = {"LC_ALL=zh_CN.UTF-8", NULL};
    run_hkls(a1, zh, &r);
    assert_int_equal(r.code, 2);
    expect_in(r.out, "blob.cu 不是文本文件（NUL 字节，位于第 7 字节）");
    assert_null(strstr(r.out, "is not a text file"));
    run_free(&r);
    const char *a1j[] = {"check", bin, "--json", NULL};
    run_hkls(a1j, zh, &r);
    expect_in(r.out, "blob.cu is not a text file (a NUL byte at byte 7)");
    run_free(&r);
    const char *a2[] = {"check", latin1, "saxpy.cu", "--json", NULL};
    run_hkls(a2, NULL, &r);
    assert_int_equal(r.code, 2);
    json_t *j = json_loads(r.out, 0, NULL);
    assert_non_null(j);
    json_t *files = json_object_get(j, "files");
    assert_int_equal(json_array_size(files), 2);
    json_t *f0 = json_array_get(files, 0);
    assert_string_equal(json_string_value(json_object_get(f0, "status")), "failed");
    expect_in(json_string_value(json_object_get(f0, "error")),
              "latin1.cu is not a text file (invalid UTF-8 at byte 51)");
    /* the other file is still checked */
    assert_string_equal(json_string_value(json_object_get(json_array_get(files, 1), "status")),
                        "ok");
    json_decref(j);
    run_free(&r);

    const char *a3[] = {"check", "--target", "nvidia:sm_999", "saxpy.cu", NULL};
    run_hkls(a3, NULL, &r);
    assert_int_equal(r.code, 2);
    expect_in(r.err, "bad target 'nvidia:sm_999'");
    expect_in(r.err, "sm_90 sm_100"); /* says which are accepted */
    run_free(&r);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void check_hip(void **state)
{
    char *p = NULL;
    if (cc_find_compiler(CC_DCU, &p) != HK_OK)
        skip();
    hk_free(p);
    struct run r;
    const char *args[] = {"check", "vgpr.hip", "spill.hip", NULL};
    run_hkls(args, NULL, &r);
    if (r.code != 0)
        fail_msg("exit %d\n%s\n%s", r.code, r.out, r.err);
    expect_in(r.out, "vgpr.hip [dcu:gfx906]: ok, 1 kernel");
    /* Exact counts depend on the hipcc release: only the shape is checked here
     * (test_compile.c checks the numbers on saved output). */
    expect_in(r.out, "wide (line 4): ");
    expect_in(r.out, " VGPRs, ");
    expect_in(r.out, "heavy (line 3): 24 VGPRs"); /* capped by amdgpu_num_vgpr(24) */
    run_free(&r);
}

static void doctor_reports(void **state)
{
    struct run r;
    const char *args[] = {"doctor", NULL};
    run_hkls(args, NULL, &r);
    assert_int_equal(r.code, 0);
    expect_in(r.out, "toolchains");
    expect_in(r.out, "profilers");
    expect_in(r.out, "isolation");
    expect_in(r.out, "sandbox");   /* the level candidate programs would get */
    /* nvcc may be found on PATH (a wrapper in /usr/local/bin, say) before
     * /usr/local/cuda/bin, so only the status and the version are fixed. */
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) {
        expect_in(r.out, "[ok]      nvcc          /");
        expect_in(r.out, "nvcc  (Cuda compilation tools");
    }
    run_free(&r);

    /* With nothing on PATH, PATH-only tools are missing and each says what it costs. */
    const char *env[] = {"PATH=/nonexistent", "CUDA_HOME=/nonexistent", "CUDA_PATH=/nonexistent",
                         "ROCM_PATH=/nonexistent", NULL};
    const char *jargs[] = {"doctor", "--json", NULL};
    run_hkls(jargs, env, &r);
    assert_int_equal(r.code, 0);
    json_error_t err;
    json_t *root = json_loads(r.out, 0, &err);
    if (!root)
        fail_msg("not JSON (%s):\n%s", err.text, r.out);
    json_t *items = json_object_get(root, "items");
    assert_true(json_array_size(items) >= 18);
    size_t i;
    json_t *it;
    bool saw_ssh = false;
    json_array_foreach(items, i, it) {
        bool found = json_is_true(json_object_get(it, "found"));
        const char *cost = json_string_value(json_object_get(it, "cost"));
        if (!found && (!cost || strlen(cost) < 20))
            fail_msg("%s is missing without a cost sentence",
                     json_string_value(json_object_get(it, "name")));
        if (!strcmp(json_string_value(json_object_get(it, "name")), "ssh")) {
            saw_ssh = true;
            assert_false(found);
        }
    }
    assert_true(saw_ssh);
    json_t *iso = json_object_get(root, "isolation");
    assert_non_null(json_string_value(json_object_get(iso, "uses")));
    assert_non_null(json_string_value(json_object_get(iso, "words")));
    assert_true(json_is_true(json_object_get(json_object_get(iso, "levels"), "none")));
    json_decref(root);
    run_free(&r);

    /* The human output speaks the user's language (issue 14: LC_ALL, LC_MESSAGES, LANG);
     * --json stays language-neutral. */
    const char *zh_env[] = {"PATH=/nonexistent", "CUDA_HOME=/nonexistent", "CUDA_PATH=/nonexistent",
                            "ROCM_PATH=/nonexistent", "LC_ALL=zh_CN.UTF-8", NULL};
    const char *en_env[] = {"PATH=/nonexistent", "CUDA_HOME=/nonexistent", "CUDA_PATH=/nonexistent",
                            "ROCM_PATH=/nonexistent", "LC_ALL=C", NULL};
    run_hkls(args, en_env, &r);
    assert_int_equal(r.code, 0);
    expect_in(r.out, "\nrunners\n");
    expect_in(r.out, "ssh           Remote GPU hosts cannot be used as runners.\n");
    expect_in(r.out, "\nthis hkls\n");
    expect_in(r.out, " missing.\n");
    run_free(&r);
    run_hkls(args, zh_env, &r);
    assert_int_equal(r.code, 0);
    expect_in(r.out, "\n工具链\n");
    expect_in(r.out, "\n运行器\n");
    expect_in(r.out, "\n隔离\n");
    expect_in(r.out, "ssh           无法使用远程 GPU 主机作为运行器。\n");
    expect_in(r.out, "本机可用：");
    expect_in(r.out, "\n本 hkls\n");
    expect_in(r.out, "缺少 ");
    if (strstr(r.out, "Remote GPU hosts") || strstr(r.out, "\nrunners\n") || strstr(r.out, " missing."))
        fail_msg("English left in the zh-CN output:\n%s", r.out);
    run_free(&r);
    run_hkls(jargs, zh_env, &r);
    assert_int_equal(r.code, 0);
    expect_in(r.out, "\"cost\": \"Remote GPU hosts cannot be used as runners.\"");
    expect_in(r.out, "\"category\": \"runners\"");
    if (strstr(r.out, "无法"))
        fail_msg("--json changed with the language:\n%s", r.out);
    run_free(&r);

    const char *bad[] = {"doctor", "--bogus", NULL};
    run_hkls(bad, NULL, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
}

/* hkls trust and hkls spec speak the user's language (issue 14: the CLI's human
 * output); the spec's JSON on stdout does not change with it. */
static void trust_and_spec_in_chinese(void **state)
{
    (void)state;
    char tmp[] = "/tmp/hk-cli-trust-XXXXXX";
    assert_non_null(mkdtemp(tmp));
    char cfg[128], xdg[160], folder[128];
    snprintf(cfg, sizeof cfg, "%s/cfg", tmp);
    snprintf(folder, sizeof folder, "%s/ws", tmp);
    assert_int_equal(mkdir(cfg, 0700), 0);
    assert_int_equal(mkdir(folder, 0700), 0);
    snprintf(xdg, sizeof xdg, "XDG_CONFIG_HOME=%s", cfg);
    const char *zh[] = {xdg, "LC_ALL=zh_CN.UTF-8", NULL}, *en[] = {xdg, "LC_ALL=C", NULL};
    const char *add[] = {"trust", folder, NULL}, *rm[] = {"trust", "--remove", folder, NULL};
    struct {
        const char *const *args, *const *env;
        const char *want;
    } steps[] = {
        {add, zh, "已信任："},       {add, zh, "此前已信任："},    {rm, zh, "已取消信任："},
        {rm, zh, "原本未信任："},    {add, en, "trusted: "},      {add, en, "already trusted: "},
        {rm, en, "no longer trusted: "}, {rm, en, "was not trusted: "},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(steps); i++) {
        struct run r;
        run_hkls(steps[i].args, steps[i].env, &r);
        if (r.code != 0 || strncmp(r.out, steps[i].want, strlen(steps[i].want)) ||
            !strstr(r.out, folder))
            fail_msg("step %zu: exit %d, want \"%s\" and the folder:\n%s%s", i, r.code,
                     steps[i].want, r.out, r.err);
        run_free(&r);
    }

    const char *spec_args[] = {"spec", "saxpy.cu", "--kernel", "saxpy", NULL};
    struct run a, b;
    run_hkls(spec_args, zh, &a);
    run_hkls(spec_args, en, &b);
    assert_int_equal(a.code, 0);
    assert_int_equal(b.code, 0);
    expect_in(a.err, "hkls spec：推断：");
    expect_in(b.err, "hkls spec: inferred: ");
    if (strstr(a.err, "hkls spec: inferred"))
        fail_msg("English left:\n%s", a.err);
    assert_string_equal(a.out, b.out); /* the JSON is language-neutral */
    run_free(&a);
    run_free(&b);
    char out[200];
    snprintf(out, sizeof out, "%s/saxpy.bench.json", tmp);
    const char *spec_o[] = {"spec", "saxpy.cu", "--kernel", "saxpy", "-o", out, NULL};
    run_hkls(spec_o, zh, &a);
    assert_int_equal(a.code, 0);
    expect_in(a.err, "hkls spec：已写入 ");
    expect_in(a.err, "（核函数 saxpy）");
    run_free(&a);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_prints_kernels),
        cmocka_unit_test(check_names_errors_and_fails),
        cmocka_unit_test(check_json_and_flags),
        cmocka_unit_test(check_refuses_bad_input),
        cmocka_unit_test(check_refuses_binary_and_unknown_arch),
        cmocka_unit_test(check_hip),
        cmocka_unit_test(doctor_reports),
        cmocka_unit_test(check_in_chinese),
        cmocka_unit_test(trust_and_spec_in_chinese),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
