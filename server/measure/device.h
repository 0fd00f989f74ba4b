/* The episode's init stage: what GPU is here and what it can really do. A small CUDA
 * program (generated as text, compiled with nvcc, run through the runner) prints the
 * device's facts and MEASURED peaks (copy bandwidth, FP32 FMA rate, BF16 tensor rate via
 * cuBLAS) as JSON; the result is cached per device (name + UUID) so it is measured once.
 * Blocking calls for the episode worker; not for the LSP loop. */
#ifndef HK_ENGINE_DEVICE_H
#define HK_ENGINE_DEVICE_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define DEVICE_PROBE_VERSION 1

/* Facts and measured peaks of one GPU. Value type (no pointers). Rates < 0: not measured. */
typedef struct {
    int probe_version;
    char name[256];
    char uuid[64];              /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L */
    int cc_major, cc_minor;
    char arch[16];              /* "sm_90", derived from the compute capability */
    int sm_count;
    int64_t l2_bytes;
    int64_t global_mem_bytes;
    int sm_clock_khz;
    int mem_clock_khz;
    int bus_width_bits;
    double theoretical_bw_gbs;  /* 2 * memory clock * bus width (from attributes, not measured) */
    int warp_size;
    int max_threads_per_sm;
    int regs_per_sm;
    int64_t smem_per_sm;
    int64_t smem_per_block_optin;
    int driver_version, runtime_version;
    int64_t copy_bytes;         /* buffer size the copy rates were measured with */
    double copy_kernel_gbs;     /* MEASURED: 16-byte grid-stride copy kernel, read + written */
    double memcpy_d2d_gbs;      /* MEASURED: cudaMemcpy device to device, read + written */
    double fp32_tflops;         /* MEASURED: independent FMA chains */
    double tensor_bf16_tflops;  /* MEASURED: cublasGemmEx BF16 -> FP32, 8192^3; < 0: absent */
    char tensor_note[256];      /* how the tensor rate was measured, or why it is absent */
    int64_t measured_at;        /* unix seconds; 0 when unknown */
} device_info;

/* The best measured copy bandwidth (GB/s): the larger of the kernel and memcpy rates. */
double device_peak_bandwidth_gbs(const device_info *d);

/* ---- the probe program ---- */

/* The probe's CUDA source (static, never NULL). Compile with -DHK_PROBE_NO_CUBLAS (and
 * without -lcublas) where cuBLAS is missing: the tensor rate is then reported absent. */
const char *device_probe_source(void);

/* Options for device_probe. Strings borrowed for the call. */
typedef struct {
    const char *nvcc;           /* NULL: "nvcc" on PATH, else /usr/local/cuda/bin/nvcc */
    const char *workdir;        /* existing directory for probe.cu and the binary. Required. */
    const char *arch;           /* "sm_90"; NULL: from nvidia-smi's compute_cap, else "native" */
    unsigned compile_timeout_ms;/* 0: 180000 */
    unsigned run_timeout_ms;    /* 0: 300000 */
    bool compile_only;          /* build the program and stop (no GPU needed) */
    /* When *stop becomes non-zero (a signal handler sets it), the running compile or probe
     * is killed (its whole process group) within about 100 ms and device_probe returns
     * HK_ECANCELED. May be NULL. */
    const volatile sig_atomic_t *stop;
} device_probe_options;

/* New argv (NULL-terminated, free each string and the array with hk_free, or use
 * device_argv_free) compiling src into exe: nvcc -O3 -arch=ARCH -o exe src [-lcublas]
 * (with_cublas false adds -DHK_PROBE_NO_CUBLAS). HK_OK, HK_EINVAL, HK_ENOMEM. */
int device_probe_compile_argv(const char *nvcc, const char *arch, const char *src,
                              const char *exe, bool with_cublas, char ***argv);
void device_argv_free(char **argv);

/* Writes the probe to workdir/hk_device_probe.cu, compiles it (with cuBLAS; without it if
 * that fails), runs it on GPU 0 through the runner and parses its JSON into *info.
 * With compile_only it stops after the compile (info untouched). Errors: HK_EINVAL,
 * HK_EIO (files), HK_ENOGPU (compiled, but there is no GPU to run it on), HK_ECHILD
 * (compile or run failed; *why says how, hk_free), HK_ETIMEDOUT, HK_EPARSE (bad output),
 * HK_ECANCELED (o->stop raised), HK_ENOMEM. why may be NULL; *why is NULL on success. */
int device_probe(const device_probe_options *o, device_info *info, char **why);

/* ---- JSON ---- */

/* Parses the probe's output (one JSON object; text before it is ignored) into *info.
 * HK_OK; HK_EPARSE naming the missing or bad field in *why (static string, may be NULL). */
int device_info_parse(const char *text, size_t len, device_info *info, const char **why);
/* Same from a JSON object (borrowed). */
int device_info_from_json(const json_t *obj, device_info *info, const char **why);
/* New reference: the info as a JSON object (absent rates as null). NULL on ENOMEM. */
json_t *device_info_to_json(const device_info *info);

/* ---- the per-device cache ---- */

/* New path (hk_free) of the cache file: $XDG_CACHE_HOME/hyperkernel/devices.json, else
 * $HOME/.cache/hyperkernel/devices.json. HK_OK, HK_ENOENT (neither variable set), HK_ENOMEM. */
int device_cache_path(char **out);
/* Looks up name + uuid in the cache file (path NULL: device_cache_path). HK_OK; HK_ENOENT
 * (no file or no entry, or an entry from an older probe version); HK_EPARSE (corrupt file);
 * HK_ETOOBIG (file over 4 MiB). */
int device_cache_load(const char *path, const char *name, const char *uuid, device_info *info);
/* Adds or replaces the entry for info's name + uuid, creating directories as needed, and
 * writes the file atomically (temporary file + rename) while holding an flock on
 * PATH.lock, so concurrent savers do not drop each other's entries. HK_OK, HK_EIO,
 * HK_EPARSE (existing file corrupt: it is left alone), HK_ENOMEM. */
int device_cache_save(const char *path, const device_info *info);

/* ---- detection without a CUDA context ---- */

typedef struct {
    bool present;        /* an NVIDIA GPU is visible (device_detect_dcu: an AMD/Hygon one) */
    int count;           /* GPUs listed by nvidia-smi -L (0 when only /dev/nvidia0 was seen);
                          * DCU: GPU nodes of the KFD topology */
    char name[256];      /* first GPU's name from nvidia-smi -L, "" when unknown */
    char uuid[64];       /* first GPU's UUID, "" when unknown */
    char how[64];        /* "nvidia-smi -L", "/dev/nvidia0", "kfd topology", "/dev/kfd",
                          * or "none" */
    char arch[32];       /* DCU: the first GPU's gfx ISA ("gfx906", "gfx90a", "gfx928"), from
                          * its KFD gfx_target_version; "" when unknown and on NVIDIA */
    int cu_count;        /* DCU: compute units of the first GPU; 0 when unknown */
} device_gpu;

/* Says whether an NVIDIA GPU is present: runs nvidia-smi -L (10 s limit) and falls back to
 * /dev/nvidia0. Never creates a CUDA context. HK_OK (even when none is present), HK_ENOMEM. */
int device_detect_gpu(device_gpu *out);
/* Says whether an AMD/Hygon GPU (DCU) is present, without a HIP context: /dev/kfd must
 * exist (no HIP runtime sees a GPU without it), then the GPU nodes of the KFD topology
 * (sysfs_root/class/kfd/kfd/topology/nodes/N/{properties,name}; sysfs_root NULL: "/sys")
 * give the count, arch, compute units and name; with /dev/kfd but no readable topology it
 * is present with an unknown arch; a topology of CPU nodes only means none. rocm-smi / hy-smi are not needed. HK_OK (even when
 * none is present), HK_ENOMEM. dev_kfd: the device file to test (NULL: "/dev/kfd"). */
int device_detect_dcu(const char *dev_kfd, const char *sysfs_root, device_gpu *out);
/* One KFD topology node's properties text ("name value" lines): *is_gpu when its
 * gfx_target_version is non-zero (CPU nodes have 0), arch "gfxMmS" from it (stepping in
 * hex: 90010 -> gfx90a, 90006 -> gfx906), *cu_count from simd_count / simd_per_cu, uuid
 * from unique_id ("" when absent). HK_OK, HK_EPARSE when no gfx_target_version line. */
int device_parse_kfd_node(const char *text, bool *is_gpu, char *arch, size_t arch_size,
                          int *cu_count, char *uuid, size_t uuid_size);
/* Parses nvidia-smi -L output ("GPU 0: NAME (UUID: GPU-...)" lines) into *out: the name
 * and UUID of the GPU CUDA numbers 0 and the count CUDA sees. visible: the value of
 * CUDA_VISIBLE_DEVICES (indices or UUID prefixes, comma-separated; its first entry is
 * device 0), or NULL for every GPU listed. HK_OK, or HK_EPARSE when no line matches (or
 * none is visible). */
int device_parse_smi_list(const char *text, const char *visible, device_gpu *out);

#endif
