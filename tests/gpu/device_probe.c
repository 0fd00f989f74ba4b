/* hk_device_probe: the episode's init-stage probe on its own, for tests/gpu/run.sh. Detects
 * the GPU (nvidia-smi), compiles and runs the probe program (measure/device.h), prints the
 * device's facts and MEASURED peaks as one JSON object on stdout, and stores them in the
 * per-device cache so the episodes that follow reuse them. Without a GPU it prints
 * "skipped: no GPU" and exits 0. Exit 1 when the probe fails (the reason on stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "measure/device.h"

int main(int argc, char **argv)
{
    hk_alloc_init_json();
    const char *arch = argc > 1 ? argv[1] : NULL;
    device_gpu gpu;
    if (device_detect_gpu(&gpu) != HK_OK) {
        fprintf(stderr, "hk_device_probe: out of memory\n");
        return 1;
    }
    if (!gpu.present) {
        printf("skipped: no GPU\n");
        return 0;
    }
    char dir[] = "/tmp/hk-device-probe-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("hk_device_probe: mkdtemp");
        return 1;
    }
    device_probe_options o = { .workdir = dir, .arch = arch };
    device_info info;
    memset(&info, 0, sizeof info);
    char *why = NULL;
    int rc = device_probe(&o, &info, &why);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "hk_device_probe: could not remove %s\n", dir);
    if (rc != HK_OK) {
        fprintf(stderr, "hk_device_probe: %s%s%s\n", hk_strerror(rc), why ? ": " : "",
                why ? why : "");
        hk_free(why);
        return 1;
    }
    /* The probe reads nvidia-smi's UUID only through the episode; keep the cache key the
     * episode uses (name + UUID from nvidia-smi -L). */
    if (!info.uuid[0])
        snprintf(info.uuid, sizeof info.uuid, "%s", gpu.uuid);
    json_t *j = device_info_to_json(&info);
    char *s = j ? json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    if (!s) {
        fprintf(stderr, "hk_device_probe: out of memory\n");
        json_decref(j);
        return 1;
    }
    printf("%s\n", s);
    free(s);
    json_decref(j);
    char *cache = NULL;
    if (device_cache_path(&cache) == HK_OK && device_cache_save(cache, &info) != HK_OK)
        fprintf(stderr, "hk_device_probe: could not update the device cache %s\n", cache);
    hk_free(cache);
    return 0;
}
