/* Occupancy from compile-time resources: how many blocks of a kernel fit on one SM
 * (NVIDIA) or CU (DCU) and which resource runs out first. NVIDIA follows the rules of
 * CUDA's cuda_occupancy.h (the occupancy calculator's code); DCU follows LLVM AMDGPU's
 * occupancy rules for gfx9. docs/doctor.md lists the rules and the sources. */
#include "compile/compile.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "core/i18n.h"

/* warp, threads/block, warps/SM, blocks/SM, regs/SM, reg unit, regs/thread,
 * smem/SM, smem/block (opt-in), smem unit, reserved, barrier factor, sub-partitions
 * (or SIMDs), waves/SIMD, SGPRs/SIMD, unified AGPRs. The NVIDIA rows reproduce
 * cuda_occupancy.h exactly: tests/data/compile/occupancy_ref.txt is its output. */
static const cc_arch_limits arch_table[] = {
    {"sm_70", CC_NVIDIA, 32, 1024, 64, 32, 65536, 256, 255, 98304, 98304, 256, 0, 0, 4, 0, 0, false},
    {"sm_75", CC_NVIDIA, 32, 1024, 32, 16, 65536, 256, 255, 65536, 65536, 256, 0, 0, 4, 0, 0, false},
    {"sm_80", CC_NVIDIA, 32, 1024, 64, 32, 65536, 256, 255, 167936, 166912, 128, 1024, 0, 4, 0, 0, false},
    {"sm_86", CC_NVIDIA, 32, 1024, 48, 16, 65536, 256, 255, 102400, 101376, 128, 1024, 0, 4, 0, 0, false},
    {"sm_89", CC_NVIDIA, 32, 1024, 48, 24, 65536, 256, 255, 102400, 101376, 128, 1024, 0, 4, 0, 0, false},
    {"sm_90", CC_NVIDIA, 32, 1024, 64, 32, 65536, 256, 255, 233472, 232448, 128, 1024, 2, 4, 0, 0, false},
    {"sm_100", CC_NVIDIA, 32, 1024, 64, 32, 65536, 256, 255, 233472, 232448, 128, 1024, 2, 4, 0, 0, false},
    {"sm_120", CC_NVIDIA, 32, 1024, 48, 24, 65536, 256, 255, 102400, 101376, 128, 1024, 1, 4, 0, 0, false},
    /* gfx9: 4 SIMDs per CU, 64 KiB LDS per CU allocated in 512-byte granules, at most
     * 16 workgroups per CU (barriers) unless a workgroup is a single wave. */
    {"gfx906", CC_DCU, 64, 1024, 40, 16, 256, 4, 256, 65536, 65536, 512, 0, 0, 4, 10, 800, false},
    {"gfx90a", CC_DCU, 64, 1024, 32, 16, 512, 8, 512, 65536, 65536, 512, 0, 0, 4, 8, 800, true},
    /* Hygon DCUs: gfx9 with wavefront 64; modelled as gfx906 until measured there. */
    {"gfx926", CC_DCU, 64, 1024, 40, 16, 256, 4, 256, 65536, 65536, 512, 0, 0, 4, 10, 800, false},
    {"gfx928", CC_DCU, 64, 1024, 40, 16, 256, 4, 256, 65536, 65536, 512, 0, 0, 4, 10, 800, false},
    {"gfx936", CC_DCU, 64, 1024, 40, 16, 256, 4, 256, 65536, 65536, 512, 0, 0, 4, 10, 800, false},
};

const cc_arch_limits *cc_arch_table(size_t *n_out)
{
    *n_out = HK_ARRAY_LEN(arch_table);
    return arch_table;
}

const cc_arch_limits *cc_arch_find(const char *arch)
{
    if (!arch)
        return NULL;
    size_t n = strlen(arch);
    /* "sm_90a" / "sm_100f" are feature variants of the same SM; "gfx90a:xnack-" a
     * target ID with features. */
    const char *colon = strchr(arch, ':');
    if (colon)
        n = (size_t)(colon - arch);
    for (size_t i = 0; i < HK_ARRAY_LEN(arch_table); i++) {
        const char *name = arch_table[i].arch;
        size_t k = strlen(name);
        if (n == k && strncmp(arch, name, k) == 0)
            return &arch_table[i];
        if (arch_table[i].backend == CC_NVIDIA && n == k + 1 && strncmp(arch, name, k) == 0 &&
            (arch[k] == 'a' || arch[k] == 'f'))
            return &arch_table[i];
    }
    return NULL;
}

/* Compute capabilities in nvcc's --list-gpu-code of CUDA 12.0 to 13.0 (sm_101 became
 * sm_110 in 13.0; both are kept). */
static const char *const nvidia_archs[] = {
    "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75",
    "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_101", "sm_103",
    "sm_110", "sm_120", "sm_121",
};

bool cc_nvidia_arch_known(const char *arch)
{
    if (!arch)
        return false;
    size_t n = strlen(arch);
    for (size_t i = 0; i < HK_ARRAY_LEN(nvidia_archs); i++) {
        const char *name = nvidia_archs[i];
        size_t k = strlen(name);
        if (n == k && !strcmp(arch, name))
            return true;
        /* the arch-specific (a) and family (f) variants exist from sm_90 on */
        if (n == k + 1 && !strncmp(arch, name, k) && (arch[k] == 'a' || arch[k] == 'f') &&
            atoi(name + 3) >= 90)
            return true;
    }
    return false;
}

const char *cc_nvidia_archs_text(void)
{
    return hk_tr(HK_MSG_CCX_NVIDIA_ARCHS);
}

int cc_parse_target(const char *s, enum cc_backend *backend_out, char **arch_out)
{
    if (!s || !*s)
        return HK_EINVAL;
    enum cc_backend b;
    const char *arch = s;
    bool explicit_backend = false;
    if (strncmp(s, "nvidia:", 7) == 0) {
        b = CC_NVIDIA;
        arch = s + 7;
        explicit_backend = true;
    } else if (strncmp(s, "dcu:", 4) == 0 || strncmp(s, "amd:", 4) == 0) {
        b = CC_DCU;
        arch = s + 4;
        explicit_backend = true;
    } else if (strncmp(s, "sm_", 3) == 0) {
        b = CC_NVIDIA;
    } else if (strncmp(s, "gfx", 3) == 0) {
        b = CC_DCU;
    } else {
        return HK_EINVAL;
    }
    /* The arch goes on a compiler command line: keep it to a plain token. */
    if (!*arch || strlen(arch) > 32)
        return HK_EINVAL;
    for (const char *c = arch; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == ':' || *c == '+' || *c == '-'))
            return HK_EINVAL;
    if (b == CC_NVIDIA && !cc_nvidia_arch_known(arch))
        return HK_EINVAL;
    if (b == CC_DCU && strncmp(arch, "gfx", 3) != 0)
        return HK_EINVAL;
    (void)explicit_backend;
    char *a = hk_strdup(arch);
    if (!a)
        return HK_ENOMEM;
    *backend_out = b;
    *arch_out = a;
    return HK_OK;
}

static int div_up(int x, int y) { return (x + y - 1) / y; }
static int round_up(int x, int y) { return div_up(x, y) * y; }
static int min_int(int a, int b) { return a < b ? a : b; }

/* LLVM AMDGPU getOccupancyWithNumSGPRs for gfx8/gfx9. */
static int amd_waves_for_sgprs(int sgprs)
{
    if (sgprs <= 80)
        return 10;
    if (sgprs <= 88)
        return 9;
    if (sgprs <= 100)
        return 8;
    return 7;
}

/* Limits in the order the limiter is named when several bind equally: the hardware's
 * own maxima first, so a tie says "nothing to gain here" rather than blaming a
 * resource whose reduction alone would not add a block. */
enum { L_THREADS, L_BLOCKS, L_REGS, L_SMEM, L_BARRIERS, L_SGPRS, L_COUNT };
static const char *limit_names[L_COUNT] = {"threads", "blocks", "registers", "shared memory",
                                           "barriers", "sgprs"};

static void nvidia_limits(const cc_arch_limits *a, const cc_resource *r, int threads, int dyn,
                          int lim[L_COUNT])
{
    int warps = div_up(threads, a->warp_size);
    lim[L_THREADS] = a->max_warps_per_sm / warps;
    lim[L_BLOCKS] = a->max_blocks_per_sm;

    /* Registers go to warps in units of reg_alloc_unit, inside each sub-partition;
     * the hardware check rounds the block's warps up to the sub-partition count. */
    if (r->registers > 0) {
        int per_warp = round_up(r->registers * a->warp_size, a->reg_alloc_unit);
        int assumed = per_warp * round_up(warps, a->simds);
        if (r->registers > a->max_regs_per_thread || assumed > a->regs_per_sm ||
            per_warp * warps > a->regs_per_sm) {
            lim[L_REGS] = 0;
        } else {
            int warps_per_part = (a->regs_per_sm / a->simds) / per_warp;
            lim[L_REGS] = warps_per_part * a->simds / warps;
        }
    }

    /* Shared memory: static + dynamic + the driver's reserve, in allocation units,
     * against the opt-in per-block maximum and the largest carveout. */
    long total = (long)r->smem_static + dyn + a->smem_reserved;
    long alloc = (total + a->smem_alloc_unit - 1) / a->smem_alloc_unit * a->smem_alloc_unit;
    if (alloc > (long)a->smem_per_block + a->smem_reserved)
        lim[L_SMEM] = 0;
    else if (alloc > 0)
        lim[L_SMEM] = (int)(a->smem_per_sm / alloc);

    /* Named barriers limit blocks from Hopper on (cuda_occupancy.h checks them only for
     * compute capability 9+); barrier_factor is 0 where they do not. */
    if (r->barriers > 0 && a->barrier_factor > 0)
        lim[L_BARRIERS] = a->barrier_factor * a->max_blocks_per_sm / r->barriers;
}

static void dcu_limits(const cc_arch_limits *a, const cc_resource *r, int threads, int dyn,
                       int lim[L_COUNT])
{
    int waves = div_up(threads, a->warp_size);
    lim[L_THREADS] = a->max_warps_per_sm / waves;
    lim[L_BLOCKS] = waves == 1 ? a->max_warps_per_sm : a->max_blocks_per_sm;

    /* Waves per SIMD allowed by VGPRs (AGPRs share the file on gfx90a), then by
     * SGPRs; a workgroup's waves are spread over the CU's SIMDs. */
    if (r->registers > 0 || r->agprs > 0) {
        int v = r->registers > 0 ? r->registers : 1;
        int total = a->unified_agprs ? round_up(v, 4) + r->agprs : v;
        total = round_up(total, a->reg_alloc_unit);
        int w = total > a->regs_per_sm ? 0 : min_int(a->max_waves_per_simd, a->regs_per_sm / total);
        lim[L_REGS] = w * a->simds / waves;
    }
    if (r->sgprs > 0) {
        int w = min_int(a->max_waves_per_simd, amd_waves_for_sgprs(r->sgprs));
        lim[L_SGPRS] = w * a->simds / waves;
    }
    long lds = (long)r->smem_static + dyn;
    if (lds > 0) {
        long alloc = (lds + a->smem_alloc_unit - 1) / a->smem_alloc_unit * a->smem_alloc_unit;
        lim[L_SMEM] = alloc > a->smem_per_block ? 0 : (int)(a->smem_per_sm / alloc);
    }
}

int cc_occupancy_for(const char *arch, const cc_resource *r, int block_threads, int dyn_smem,
                     cc_occupancy *out)
{
    const cc_arch_limits *a = cc_arch_find(arch);
    if (!a)
        return HK_EUNSUPPORTED;
    if (!r || !out || block_threads < 0 || block_threads > (1 << 20) || dyn_smem < 0 ||
        dyn_smem > (1 << 30))
        return HK_EINVAL;
    int threads = block_threads ? block_threads : 256;
    int lim[L_COUNT];
    for (int i = 0; i < L_COUNT; i++)
        lim[i] = INT_MAX;
    memset(out, 0, sizeof *out);
    out->block_threads = threads;
    if (threads > a->max_threads_per_block) {
        out->limiter = limit_names[L_THREADS];
        return HK_OK;
    }
    if (a->backend == CC_NVIDIA)
        nvidia_limits(a, r, threads, dyn_smem, lim);
    else
        dcu_limits(a, r, threads, dyn_smem, lim);
    int best = L_THREADS;
    for (int i = 1; i < L_COUNT; i++)
        if (lim[i] < lim[best])
            best = i;
    int blocks = lim[best];
    int warps = div_up(threads, a->warp_size);
    out->blocks_per_sm = blocks;
    out->warps_per_sm = blocks * warps;
    out->occupancy = (double)out->warps_per_sm / a->max_warps_per_sm;
    out->limiter = limit_names[best];
    return HK_OK;
}
