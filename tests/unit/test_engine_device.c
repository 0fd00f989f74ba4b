/* Device probe tests: the generated program compiles with the real nvcc (with and without
 * cuBLAS), its JSON (a fixture recorded on an H200) parses, bad output is refused with the
 * field named, the per-device cache round-trips, nvidia-smi -L parses. Where a GPU is
 * present the probe is run for real; elsewhere that test says "skipped: no GPU". */
#include "core/hk.h"
#include "measure/device.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "said_zh.h"

static char tmpdir[512];

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "%s/test-device-XXXXXX", HK_BINARY_DIR);
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return b;
}

static void test_source_shape(void **state)
{
    const char *s = device_probe_source();
    /* the measurements the init stage relies on are all there, and every call is checked */
    assert_non_null(strstr(s, "cublasGemmEx"));
    assert_non_null(strstr(s, "CUDA_R_16BF"));
    assert_non_null(strstr(s, "CUBLAS_COMPUTE_32F"));
    assert_non_null(strstr(s, "cudaMemcpyDeviceToDevice"));
    assert_non_null(strstr(s, "uint4"));
    assert_non_null(strstr(s, "cudaEventElapsedTime"));
    assert_non_null(strstr(s, "fmaf"));
    assert_non_null(strstr(s, "HK_PROBE_NO_CUBLAS"));
}

static void test_compile_argv(void **state)
{
    char **argv;
    assert_int_equal(device_probe_compile_argv("nvcc", "sm_90", "p.cu", "p", true, &argv), HK_OK);
    const char *want[] = {"nvcc", "-O3", "-arch=sm_90", "-o", "p", "p.cu", "-lcublas", NULL};
    for (int i = 0; want[i]; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[7]);
    device_argv_free(argv);
    assert_int_equal(device_probe_compile_argv("nvcc", "sm_80", "p.cu", "p", false, &argv), HK_OK);
    assert_string_equal(argv[3], "-DHK_PROBE_NO_CUBLAS");
    for (int i = 0; argv[i]; i++)
        assert_string_not_equal(argv[i], "-lcublas");
    device_argv_free(argv);
    assert_int_equal(device_probe_compile_argv("nvcc", "", "p.cu", "p", false, &argv), HK_EINVAL);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_compile_with_nvcc(void **state)
{
    if (access(NVCC, X_OK) != 0) {
        print_message("skipped: no nvcc at %s\n", NVCC);
        skip();
    }
    device_probe_options o = {.nvcc = NVCC, .workdir = tmpdir, .arch = "sm_90",
                              .compile_only = true};
    device_info info;
    memset(&info, 0x5a, sizeof info);
    char *why = NULL;
    int rc = device_probe(&o, &info, &why);
    if (rc)
        print_message("why: %s\n", why ? why : "?");
    assert_int_equal(rc, HK_OK);
    assert_null(why);
    char exe[700];
    snprintf(exe, sizeof exe, "%s/hk_device_probe", tmpdir);
    assert_int_equal(access(exe, X_OK), 0);
    unlink(exe);

    /* the cuBLAS-free variant compiles on its own too */
    char src[700], cmd[2200];
    snprintf(src, sizeof src, "%s/hk_device_probe.cu", tmpdir);
    snprintf(cmd, sizeof cmd, "%s -O3 -arch=sm_90 -DHK_PROBE_NO_CUBLAS -o '%s' '%s' 2>&1", NVCC, exe,
             src);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(access(exe, X_OK), 0);

    /* a broken compiler is a clear failure, not a crash */
    device_probe_options bad = {.nvcc = "/bin/false", .workdir = tmpdir, .arch = "sm_90",
                                .compile_only = true};
    assert_int_equal(device_probe(&bad, &info, &why), HK_ECHILD);
    assert_non_null(why);
    assert_non_null(strstr(why, "probe compile"));
    hk_free(why);
    /* a full probe where there is no GPU: compiled, then HK_ENOGPU said plainly */
    device_gpu g;
    assert_int_equal(device_detect_gpu(&g), HK_OK);
    if (!g.present) {
        device_probe_options full = {.nvcc = NVCC, .workdir = tmpdir, .arch = "sm_90"};
        assert_int_equal(device_probe(&full, &info, &why), HK_ENOGPU);
        assert_non_null(strstr(why, "no NVIDIA GPU"));
        hk_free(why);
    }
    device_probe_options nodir = {.nvcc = NVCC, .workdir = "/nonexistent/dir"};
    assert_int_equal(device_probe(&nodir, &info, &why), HK_EINVAL);
    assert_non_null(strstr(why, "does not exist"));
    hk_free(why);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_parse_fixture(void **state)
{
    size_t len;
    char *text = slurp(HK_TEST_DATA "/device/h200_probe.txt", &len);
    device_info d;
    const char *why = NULL;
    assert_int_equal(device_info_parse(text, len, &d, &why), HK_OK);
    assert_null(why);
    assert_non_null(strstr(d.name, "H200"));
    assert_int_equal(strncmp(d.uuid, "GPU-", 4), 0);
    assert_int_equal(d.cc_major, 9);
    assert_int_equal(d.cc_minor, 0);
    assert_string_equal(d.arch, "sm_90");
    assert_int_equal(d.sm_count, 132);
    assert_true(d.l2_bytes > 40 * 1000 * 1000);
    assert_true(d.copy_kernel_gbs > 1000 && d.copy_kernel_gbs < 10000);
    assert_true(d.memcpy_d2d_gbs > 1000);
    assert_true(d.fp32_tflops > 10);
    assert_true(d.tensor_bf16_tflops > 100);
    assert_true(device_peak_bandwidth_gbs(&d) >= d.copy_kernel_gbs);
    free(text);

    /* to_json and back is lossless for what matters */
    json_t *j = device_info_to_json(&d);
    assert_non_null(j);
    device_info e;
    assert_int_equal(device_info_from_json(j, &e, &why), HK_OK);
    assert_string_equal(e.name, d.name);
    assert_true(e.copy_kernel_gbs == d.copy_kernel_gbs);
    assert_true(e.tensor_bf16_tflops == d.tensor_bf16_tflops);
    json_decref(j);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_parse_bad(void **state)
{
    device_info d;
    const char *why;
    const char *ok_head = "{\"probe_version\":1,\"name\":\"X\",\"uuid\":\"GPU-1\",\"cc_major\":8,"
                          "\"cc_minor\":0,\"sm_count\":108,\"copy_kernel_gbs\":1500.5,"
                          "\"memcpy_d2d_gbs\":1400,\"fp32_tflops\":19.1";
    char buf[1024];

    /* driver noise before the object is fine; a null tensor rate means absent */
    snprintf(buf, sizeof buf, "warning: something\n%s,\"tensor_bf16_tflops\":null,"
             "\"tensor_note\":\"built without cuBLAS\"}\n", ok_head);
    assert_int_equal(device_info_parse(buf, strlen(buf), &d, &why), HK_OK);
    assert_true(d.tensor_bf16_tflops < 0);
    assert_string_equal(d.tensor_note, "built without cuBLAS");
    assert_string_equal(d.arch, "sm_80");

    snprintf(buf, sizeof buf, "%s}", ok_head);
    assert_int_equal(device_info_parse(buf, strlen(buf), &d, &why), HK_OK);

    const char *no_sm = "{\"probe_version\":1,\"name\":\"X\",\"uuid\":\"GPU-1\",\"cc_major\":8,"
                        "\"cc_minor\":0,\"copy_kernel_gbs\":1,\"memcpy_d2d_gbs\":1,\"fp32_tflops\":1}";
    assert_int_equal(device_info_parse(no_sm, strlen(no_sm), &d, &why), HK_EPARSE);
    assert_string_equal(why, "missing or bad field sm_count");

    snprintf(buf, sizeof buf, "%s,\"tensor_bf16_tflops\":\"fast\"}", ok_head);
    assert_int_equal(device_info_parse(buf, strlen(buf), &d, &why), HK_EPARSE);
    assert_non_null(strstr(why, "tensor_bf16_tflops"));

    const char *zero = "{\"probe_version\":1,\"name\":\"X\",\"uuid\":\"GPU-1\",\"cc_major\":8,"
                       "\"cc_minor\":0,\"sm_count\":1,\"copy_kernel_gbs\":0,\"memcpy_d2d_gbs\":1,"
                       "\"fp32_tflops\":1}";
    assert_int_equal(device_info_parse(zero, strlen(zero), &d, &why), HK_EPARSE);
    assert_string_equal(why, "a measured rate is not positive");

    const char *junk = "probe: cudaSetDevice(dev) failed: no CUDA-capable device is detected\n";
    assert_int_equal(device_info_parse(junk, strlen(junk), &d, &why), HK_EPARSE);
    assert_non_null(why);
    const char *trunc = "{\"probe_version\":1,\"name\":";
    assert_int_equal(device_info_parse(trunc, strlen(trunc), &d, &why), HK_EPARSE);
    assert_int_equal(device_info_parse(NULL, 0, &d, &why), HK_EPARSE);
    assert_int_equal(hk_alloc_live(), 0);
}

static device_info sample(const char *name, const char *uuid, double bw)
{
    device_info d;
    memset(&d, 0, sizeof d);
    d.probe_version = DEVICE_PROBE_VERSION;
    snprintf(d.name, sizeof d.name, "%s", name);
    snprintf(d.uuid, sizeof d.uuid, "%s", uuid);
    d.cc_major = 9;
    snprintf(d.arch, sizeof d.arch, "sm_90");
    d.sm_count = 132;
    d.copy_kernel_gbs = bw;
    d.memcpy_d2d_gbs = bw - 100;
    d.fp32_tflops = 60;
    d.tensor_bf16_tflops = -1;
    d.measured_at = 1700000000;
    return d;
}

static void test_cache(void **state)
{
    char xdg[700];
    snprintf(xdg, sizeof xdg, "%s/xdg", tmpdir);
    setenv("XDG_CACHE_HOME", xdg, 1);
    char *path;
    assert_int_equal(device_cache_path(&path), HK_OK);
    char want[800];
    snprintf(want, sizeof want, "%s/hyperkernel/devices.json", xdg);
    assert_string_equal(path, want);

    device_info got;
    assert_int_equal(device_cache_load(NULL, "NVIDIA H200", "GPU-a", &got), HK_ENOENT);
    device_info a = sample("NVIDIA H200", "GPU-a", 3900), b = sample("NVIDIA H200", "GPU-b", 3800);
    assert_int_equal(device_cache_save(NULL, &a), HK_OK);
    assert_int_equal(device_cache_save(NULL, &b), HK_OK);
    assert_int_equal(device_cache_load(NULL, "NVIDIA H200", "GPU-a", &got), HK_OK);
    assert_true(got.copy_kernel_gbs == 3900);
    assert_true(got.tensor_bf16_tflops < 0);
    assert_int_equal(got.measured_at, 1700000000);
    assert_int_equal(device_cache_load(NULL, "NVIDIA H200", "GPU-b", &got), HK_OK);
    assert_true(got.copy_kernel_gbs == 3800);
    /* same name, another board: not the same device */
    assert_int_equal(device_cache_load(NULL, "NVIDIA H200", "GPU-c", &got), HK_ENOENT);

    a.copy_kernel_gbs = 4000;   /* re-measured: replaced, not duplicated */
    assert_int_equal(device_cache_save(NULL, &a), HK_OK);
    assert_int_equal(device_cache_load(NULL, "NVIDIA H200", "GPU-a", &got), HK_OK);
    assert_true(got.copy_kernel_gbs == 4000);

    /* an entry from an older probe is measured again */
    device_info old = sample("Old GPU", "GPU-o", 900);
    old.probe_version = DEVICE_PROBE_VERSION + 7;
    assert_int_equal(device_cache_save(path, &old), HK_OK);
    assert_int_equal(device_cache_load(path, "Old GPU", "GPU-o", &got), HK_ENOENT);

    /* concurrent savers (separate processes) all keep their entries */
    fflush(NULL);
    pid_t kids[4];
    for (int i = 0; i < 4; i++) {
        kids[i] = fork();
        assert_true(kids[i] >= 0);
        if (kids[i] == 0) {
            for (int k = 0; k < 10; k++) {
                char uuid[32];
                snprintf(uuid, sizeof uuid, "GPU-p%d-%d", i, k);
                device_info e = sample("Many", uuid, 1000 + k);
                if (device_cache_save(NULL, &e) != HK_OK)
                    _exit(1);
            }
            _exit(0);
        }
    }
    for (int i = 0; i < 4; i++) {
        int st;
        assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 10; k++) {
            char uuid[32];
            snprintf(uuid, sizeof uuid, "GPU-p%d-%d", i, k);
            assert_int_equal(device_cache_load(NULL, "Many", uuid, &got), HK_OK);
        }

    /* a corrupt file is reported and left alone */
    FILE *f = fopen(path, "w");
    fputs("{\"devices\": [", f);
    fclose(f);
    assert_int_equal(device_cache_load(path, "NVIDIA H200", "GPU-a", &got), HK_EPARSE);
    assert_int_equal(device_cache_save(path, &a), HK_EPARSE);
    size_t len;
    char *text = slurp(path, &len);
    assert_string_equal(text, "{\"devices\": [");
    free(text);
    unsetenv("XDG_CACHE_HOME");
    hk_free(path);
    assert_int_equal(hk_alloc_live(), 0);
}

static void test_smi_list(void **state)
{
    device_gpu g;
    const char *two = "GPU 0: NVIDIA H200 (UUID: GPU-3e1f0a2b-1111-2222-3333-444455556666)\n"
                      "  MIG 1g.18gb     Device  0: (UUID: MIG-aaaa)\n"
                      "GPU 1: NVIDIA H200 (UUID: GPU-ffffffff-1111-2222-3333-444455556666)\n";
    assert_int_equal(device_parse_smi_list(two, NULL, &g), HK_OK);
    assert_true(g.present);
    assert_int_equal(g.count, 2);
    assert_string_equal(g.name, "NVIDIA H200");
    assert_string_equal(g.uuid, "GPU-3e1f0a2b-1111-2222-3333-444455556666");
    assert_string_equal(g.how, "nvidia-smi -L");
    const char *paren = "GPU 0: Tesla V100-SXM2-16GB (rev a) (UUID: GPU-12)";
    assert_int_equal(device_parse_smi_list(paren, NULL, &g), HK_OK);
    assert_string_equal(g.name, "Tesla V100-SXM2-16GB (rev a)");
    assert_string_equal(g.uuid, "GPU-12");
    const char *none = "No devices were found\n";
    assert_int_equal(device_parse_smi_list(none, NULL, &g), HK_EPARSE);
    assert_false(g.present);
    assert_int_equal(device_parse_smi_list("", NULL, &g), HK_EPARSE);

    /* CUDA_VISIBLE_DEVICES: its first entry is CUDA's device 0, by index or UUID prefix */
    assert_int_equal(device_parse_smi_list(two, "1", &g), HK_OK);
    assert_int_equal(g.count, 1);
    assert_string_equal(g.uuid, "GPU-ffffffff-1111-2222-3333-444455556666");
    assert_int_equal(device_parse_smi_list(two, "1,0", &g), HK_OK);
    assert_int_equal(g.count, 2);
    assert_string_equal(g.uuid, "GPU-ffffffff-1111-2222-3333-444455556666");
    assert_int_equal(device_parse_smi_list(two, "GPU-3e1f", &g), HK_OK);
    assert_string_equal(g.uuid, "GPU-3e1f0a2b-1111-2222-3333-444455556666");
    assert_int_equal(g.count, 1);
    assert_int_equal(device_parse_smi_list(two, "0,7", &g), HK_OK);
    assert_int_equal(g.count, 1);
    assert_int_equal(device_parse_smi_list(two, "7", &g), HK_EPARSE);
    assert_false(g.present);
    assert_int_equal(device_parse_smi_list(two, "", &g), HK_EPARSE);
    assert_int_equal(device_parse_smi_list(two, "-1", &g), HK_EPARSE);
    assert_int_equal(device_parse_smi_list(two, "10", &g), HK_EPARSE);
    /* a MIG instance named by its UUID: its GPU's name, the instance's UUID (its own
     * cache entry: a slice has other peaks than the whole GPU) */
    assert_int_equal(device_parse_smi_list(two, "MIG-aaaa", &g), HK_OK);
    assert_int_equal(g.count, 1);
    assert_string_equal(g.name, "NVIDIA H200");
    assert_string_equal(g.uuid, "MIG-aaaa");
    assert_int_equal(device_parse_smi_list(two, "1,MIG-aaaa", &g), HK_OK);
    assert_int_equal(g.count, 2);
    assert_string_equal(g.uuid, "GPU-ffffffff-1111-2222-3333-444455556666");
    /* without CUDA_VISIBLE_DEVICES, MIG lines are not devices of their own */
    assert_int_equal(device_parse_smi_list(two, NULL, &g), HK_OK);
    assert_int_equal(g.count, 2);
}

/* Runs the real probe where there is a GPU; says so plainly where there is none. */
static void test_probe_on_gpu(void **state)
{
    device_gpu g;
    assert_int_equal(device_detect_gpu(&g), HK_OK);
    assert_true(g.present == (strcmp(g.how, "none") != 0));
    if (!g.present) {
        print_message("skipped: no GPU (%s)\n", g.how);
        skip();
    }
    device_probe_options o = {.workdir = tmpdir};
    device_info d;
    char *why = NULL;
    int rc = device_probe(&o, &d, &why);
    if (rc)
        print_message("probe failed: %s\n", why ? why : hk_strerror(rc));
    assert_int_equal(rc, HK_OK);
    json_t *j = device_info_to_json(&d);
    char *s = json_dumps(j, JSON_COMPACT);
    print_message("probe: %s\n", s);
    hk_free(s);
    json_decref(j);
    assert_true(d.sm_count > 0);
    assert_true(d.copy_kernel_gbs > 50);
    assert_true(d.fp32_tflops > 0.5);
    if (g.uuid[0])
        assert_string_equal(d.uuid, g.uuid);   /* the cache key matches nvidia-smi's */
    char cache[700];
    snprintf(cache, sizeof cache, "%s/devices.json", tmpdir);
    assert_int_equal(device_cache_save(cache, &d), HK_OK);
    device_info back;
    assert_int_equal(device_cache_load(cache, d.name, d.uuid, &back), HK_OK);
    assert_true(back.fp32_tflops == d.fp32_tflops);
}

/* Session 40: why a probe's output or a device record is refused is stored in English (the
 * worker's log line, "device probe failed (...): probe output: ...") and said again in
 * zh-CN where shown (hk_tr_said); English is what it was. */
static void test_said_zh(void **state)
{
    (void)state;
    device_info d;
    const char *why = NULL;
    const char *no_sm = "{\"probe_version\":1,\"name\":\"X\",\"uuid\":\"GPU-1\",\"cc_major\":8,"
                        "\"cc_minor\":0,\"copy_kernel_gbs\":1,\"memcpy_d2d_gbs\":1,\"fp32_tflops\":1}";
    assert_int_equal(device_info_parse(no_sm, strlen(no_sm), &d, &why), HK_EPARSE);
    assert_string_equal(why, "missing or bad field sm_count");
    said_zh_check(why, "字段 sm_count 缺失或有误", NULL, true);
    const char *junk = "probe: cudaSetDevice(dev) failed\n";
    assert_int_equal(device_info_parse(junk, strlen(junk), &d, &why), HK_EPARSE);
    assert_string_equal(why, "no JSON object in the probe's output");
    /* the worker's log line, the probe's reason quoted in it */
    char *line = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_EP_DEVICE_PROBE_FAILED_PHYSICAL),
                             "HK_EPARSE", "probe output: no JSON object in the probe's output");
    said_zh_check(line, "设备探测失败（HK_EPARSE）：探测程序输出：探测程序的输出中没有 JSON 对象；"
                        "没有物理下限和屋顶线模型", NULL, true);
    hk_free(line);
    said_zh_check("probe compile (with cuBLAS): timed out after 180000 ms",
                  "探测程序编译（带 cuBLAS）：180000 ms 后超时", NULL, true);
    said_zh_check("no NVIDIA GPU here (nvidia-smi -L lists none and /dev/nvidia0 is missing); the "
                  "probe was compiled but not run", NULL, "探测程序已编译但未运行", true);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_shape),   cmocka_unit_test(test_compile_argv),
        cmocka_unit_test(test_compile_with_nvcc), cmocka_unit_test(test_parse_fixture),
        cmocka_unit_test(test_parse_bad),      cmocka_unit_test(test_cache),
        cmocka_unit_test(test_said_zh),
        cmocka_unit_test(test_smi_list),       cmocka_unit_test(test_probe_on_gpu),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
