/* Finding nvcc/hipcc and friends, and the command line that asks them for
 * diagnostics and resource usage without producing an object file. */
#include "compile/compile.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hk.h"

static bool is_exec_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* Tries dir/name; *out gets a new absolute path when it is an executable file. */
static int try_dir(const char *dir, size_t dlen, const char *name, char **out)
{
    if (dlen == 0) /* an empty PATH entry means the current directory */
        dir = ".", dlen = 1;
    char *p;
    if (dir[0] == '/') {
        p = hk_asprintf("%.*s/%s", (int)dlen, dir, name);
    } else {
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd))
            return HK_ENOENT;
        p = hk_asprintf("%s/%.*s/%s", cwd, (int)dlen, dir, name);
    }
    if (!p)
        return HK_ENOMEM;
    if (is_exec_file(p)) {
        *out = p;
        return HK_OK;
    }
    hk_free(p);
    return HK_ENOENT;
}

int cc_find_tool(enum cc_backend backend, const char *name, char **out)
{
    *out = NULL;
    if (!name || !*name || strchr(name, '/'))
        return HK_ENOENT;
    int rc;
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        rc = try_dir(path, n, name, out);
        if (rc != HK_ENOENT)
            return rc;
        if (!colon)
            break;
        path = colon + 1;
    }
    /* Toolkits installed but not on PATH: the environment variables their installers
     * set, then the default install locations (Hygon's DTK lives in /opt/dtk). */
    static const char *const nv_env[] = {"CUDA_HOME", "CUDA_PATH", NULL};
    static const char *const nv_dirs[] = {"/usr/local/cuda/bin", NULL};
    static const char *const amd_env[] = {"ROCM_PATH", "HIP_PATH", NULL};
    static const char *const amd_dirs[] = {"/opt/rocm/bin", "/opt/dtk/bin", NULL};
    const char *const *env = backend == CC_NVIDIA ? nv_env : amd_env;
    const char *const *dirs = backend == CC_NVIDIA ? nv_dirs : amd_dirs;
    for (size_t i = 0; env[i]; i++) {
        const char *root = getenv(env[i]);
        if (!root || root[0] != '/')
            continue;
        char *bin = hk_asprintf("%s/bin", root);
        if (!bin)
            return HK_ENOMEM;
        rc = try_dir(bin, strlen(bin), name, out);
        hk_free(bin);
        if (rc != HK_ENOENT)
            return rc;
    }
    for (size_t i = 0; dirs[i]; i++) {
        rc = try_dir(dirs[i], strlen(dirs[i]), name, out);
        if (rc != HK_ENOENT)
            return rc;
    }
    return HK_ENOENT;
}

int cc_find_compiler(enum cc_backend backend, char **out)
{
    return cc_find_tool(backend, backend == CC_NVIDIA ? "nvcc" : "hipcc", out);
}

void cc_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        hk_free(*a);
    hk_free(argv);
}

bool cc_arg_shell_safe(enum cc_backend backend, const char *arg)
{
    for (const unsigned char *p = (const unsigned char *)arg; *p; p++) {
        if (*p < 0x20 || *p == 0x7f || strchr("`$\"'\\;&|<>()*?!{}[]", *p))
            return false;
        if (*p == ' ' && backend != CC_NVIDIA)
            return false;
    }
    return true;
}

int cc_build_argv(const cc_options *o, const char *src_path, char ***argv_out)
{
    *argv_out = NULL;
    if (!o || !src_path || !*src_path)
        return HK_EINVAL;
    const char *arch = o->arch ? o->arch : (o->backend == CC_NVIDIA ? "sm_90" : "gfx906");
    if (!*arch || arch[0] == '-')
        return HK_EINVAL;
    size_t n_extra = 0;
    if (o->extra)
        while (o->extra[n_extra])
            n_extra++;
    /* compiler, 8 fixed words at most, extras, -x LANG, the source, NULL */
    size_t cap = 1 + 8 + n_extra + 3 + 1;
    char **argv = hk_calloc(cap, sizeof *argv);
    if (!argv)
        return HK_ENOMEM;
    size_t k = 0;
    int rc = HK_ENOMEM;
#define PUSH(expr)                      \
    do {                                \
        if (!(argv[k++] = (expr)))      \
            goto out;                   \
    } while (0)
    if (o->backend == CC_NVIDIA) {
        PUSH(hk_strdup(o->compiler ? o->compiler : "nvcc"));
        PUSH(hk_asprintf("-arch=%s", arch));
        PUSH(hk_strdup("-Xptxas"));
        PUSH(hk_strdup("-v"));
    } else {
        PUSH(hk_strdup(o->compiler ? o->compiler : "hipcc"));
        PUSH(hk_asprintf("--offload-arch=%s", arch));
        /* clang's per-kernel VGPR/SGPR/scratch/LDS report (ROCm 5+ and DTK). */
        PUSH(hk_strdup("-Rpass-analysis=kernel-resource-usage"));
    }
    PUSH(hk_strdup("-c"));
    PUSH(hk_strdup("-o"));
    PUSH(hk_strdup("/dev/null"));
    for (size_t i = 0; i < n_extra; i++)
        PUSH(hk_strdup(o->extra[i]));
    /* The language is forced so a .cuh, .h or .cpp buffer compiles as device code. */
    PUSH(hk_strdup("-x"));
    PUSH(hk_strdup(o->backend == CC_NVIDIA ? "cu" : "hip"));
    PUSH(hk_strdup(src_path));
#undef PUSH
    argv[k] = NULL;
    rc = HK_OK;
    *argv_out = argv;
    argv = NULL;
out:
    cc_argv_free(argv);
    return rc;
}
