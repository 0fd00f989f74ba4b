/* The generated benchmark program: from a harness-form spec and a candidate source
 * file, writes one .cu file that #includes the candidate and include/hk_harness.h and
 * implements the run/time/probe modes (see hk_harness.h for its command line, JSON
 * output and exit codes). Also builds the nvcc and run command lines for it, so the
 * engine and tests use one definition. Pure functions, any thread. */
#ifndef HK_ENGINE_HARNESS_H
#define HK_ENGINE_HARNESS_H

#include "spec/spec.h"

#define HARNESS_MAX_TEXT (1u << 20) /* cap on the generated program */

/* The generated .cu text for spec s (harness form). candidate_path NULL: the *launcher*,
 * which holds no candidate text and runs a device-only image given at run time (--module,
 * --function); else the benchmark *program* that #includes candidate_path (an absolute
 * path is best) and calls the kernel itself: only for the engine's own library
 * substitutions. *out is a new string (hk_free). HK_OK, HK_EINVAL
 * (command-form spec, or a path with a quote or a newline), HK_ENOMEM, HK_ETOOBIG. */
int harness_generate(const spec *s, const char *candidate_path, char **out);

/* The translation unit compiled into a candidate's device-only image: for hipcc hk_hip.h
 * (the CUDA names mapped to HIP's), then candidate_path #included, plus a host-side use of kernel<template args> so that instantiation's device
 * code is emitted. New string (hk_free). HK_OK, HK_EINVAL, HK_ENOMEM, HK_ETOOBIG. */
int harness_module_generate(const spec *s, const char *candidate_path, char **out);

/* New argv: NVCC -cubin -arch=ARCH -O3 -std=c++17 -lineinfo [spec flags] [extra] -o CUBIN
 * MODULE_CU (library flags dropped: nothing is linked). HK_OK, HK_ENOMEM. */
int harness_cubin_argv(const spec *s, const char *nvcc, const char *arch,
                       const char *const *extra, const char *module_cu, const char *cubin,
                       char ***argv);

/* The device-only image of a candidate for arch: harness_cubin_argv's nvcc -cubin, or for a
 * gfx arch (a DCU; compiler then holds hipcc's path) a code object:
 *   HIPCC --genco --offload-arch=ARCH -O3 -std=c++17 -gline-tables-only -I INCLUDE [spec -I]
 *   [spec flags, extra: nvcc-only ones translated or dropped] -o IMAGE -x hip MODULE_CU
 * (library flags dropped: nothing is linked). include_dir NULL: harness_include_dir() (the
 * module includes hk_hip.h from it). HK_OK, HK_ENOMEM. */
int harness_image_argv(const spec *s, const char *compiler, const char *arch,
                       const char *include_dir, const char *const *extra, const char *module_cu,
                       const char *image, char ***argv);

/* New argv building the launchers' shared runtime (include/hk_launcher_rt.cu: hk_harness.h's
 * CUDA part, no spec in it) into the object RT_OBJ:
 *   NVCC -arch=ARCH -O2 -std=c++17 -I INCLUDE -c -o RT_OBJ INCLUDE/hk_launcher_rt.cu
 * for a gfx arch
 *   HIPCC --offload-arch=ARCH -O2 -std=c++17 -I INCLUDE -c -o RT_OBJ -x hip INCLUDE/hk_launcher_rt.cu
 * include_dir NULL: harness_include_dir(). HK_OK, HK_ENOMEM. */
int harness_launcher_rt_argv(const char *nvcc, const char *arch, const char *include_dir,
                             const char *rt_obj, char ***argv);

/* New argv building a launcher (harness_generate without a candidate: plain C++, so its
 * file must be named .cpp) linked with that runtime object:
 *   NVCC -arch=ARCH -O2 -std=c++17 -I INCLUDE -o EXE LAUNCHER_CPP RT_OBJ -ldl
 * (no spec flag: no user code is in it); for a gfx arch
 *   HIPCC --offload-arch=ARCH -O2 -std=c++17 -I INCLUDE -o EXE -x c++ LAUNCHER_CPP -x none RT_OBJ -ldl
 * HK_OK, HK_ENOMEM. */
int harness_launcher_argv(const char *nvcc, const char *arch, const char *include_dir,
                          const char *launcher_src, const char *rt_obj, const char *exe,
                          char ***argv);

/* harness_generate() then writes the text to out_path. HK_OK, HK_EIO, or as above. */
int harness_write(const spec *s, const char *candidate_path, const char *out_path);

/* Directory holding hk_harness.h: $HK_INCLUDE_DIR when set, else an installed hkls's
 * <prefix>/share/hyperkernel/include, else the source tree's include/ (hk_data_dir).
 * Static string (found once per process). */
const char *harness_include_dir(void);

/* New NULL-terminated argv (harness_argv_free) compiling prog_cu into exe:
 *   NVCC -arch=ARCH -O3 -std=c++17 -lineinfo -I INCLUDE [spec compile_flags] [extra] -o EXE PROG [libs]
 * where libs are the -lNAME flags of compile_flags and extra, moved after the program so a
 * linker that drops unreferenced libraries keeps them (-lcublas for a BLAS substitution);
 * and for an arch gfx* (a DCU; nvcc then holds hipcc's path):
 *   HIPCC --offload-arch=ARCH -O3 -std=c++17 -gline-tables-only -I INCLUDE [flags, nvcc-only
 *   ones translated or dropped] -o EXE -x hip PROG
 * nvcc NULL: "nvcc"; arch NULL: "sm_90"; include_dir NULL: harness_include_dir();
 * extra: NULL-terminated extra flags (e.g. "--use_fast_math") or NULL. HK_OK, HK_ENOMEM. */
int harness_nvcc_argv(const spec *s, const char *nvcc, const char *arch, const char *include_dir,
                      const char *const *extra, const char *prog_cu, const char *exe, char ***argv);

typedef struct {
    const char *mode;        /* "run", "time" or "probe" */
    int size, dist;          /* indices into the spec's sizes and distributions */
    long long seed;
    long long check_seed;    /* time mode: seed of the re-check after the loop; < 0: default */
    const char *out;         /* output file, or NULL */
    const long long *block;  /* 3 block dims overriding the spec, or NULL */
    double budget_ms;        /* time mode: 0 = program default */
    /* run mode, several combinations of one size in one process (--combos, --out-dir):
     * n_combos > 0 replaces seed, dist and out; each combination's output is written to
     * out_dir/HK_RUN_OUT_NAME (harness_run_out_name). Borrowed arrays of n_combos. */
    size_t n_combos;
    const long long *combo_seeds;
    const int *combo_dists;
    const char *out_dir;     /* NULL: no output files */
    /* run mode: sizes launched once each before size, unchecked (--prime-sizes), so that a
     * result depending on what earlier launches left in device memory shows; a borrowed
     * array of n_prime_sizes (at most HK_MAX_PRIME_SIZES); 0: none */
    size_t n_prime_sizes;
    const int *prime_sizes;
    /* run mode with an image: a launch that leaves a writable global of the image changed
     * (or an image whose globals cannot all be restored) fails the process, launch_state
     * (--launch-state check); otherwise the launcher restores them before every launch and
     * only notes the first change in its result line */
    bool launch_state_check;
    /* a launcher's kernel image and entry name, and (time mode) the reference kernel the
     * checked launches are compared with; NULL: none (a program) */
    const char *module, *function, *ref_module, *ref_function;
    /* time mode with a reference kernel: the baseline's own launch at this size (grid x, y,
     * z, block x, y, z, dynamic shared bytes), which the reference runs with; NULL: the
     * candidate's */
    const long long *ref_launch;
    /* time mode with a reference kernel: per argument (HK_MAX_ARGS), added to the absolute
     * tolerance of the checked launches' comparison (--widen; measure_widen); NULL: none */
    const double *widen;
    /* run mode with an image: the fp64 shadow's arguments given as double (bit i: argument
     * i, a float in the spec) and its dynamic shared memory scale; 0: none */
    unsigned long long promote;
    int shmem_scale;
    /* run mode, one combination, no fp64 shadow: the sensitivity check's perturbed inputs
     * (--perturb SEED:SCALE[:spread], hk_harness.h's hk_perturb_plan_kind); false: none.
     * perturb_kind: enum hk_perturb_kind (0 the ladder, 1 the spread plan) */
    bool perturb;
    long long perturb_seed;
    double perturb_scale;
    int perturb_kind;
} harness_run;

/* The file name (no directory) a --combos run writes for (size, dist, seed), as
 * hk_harness.h's HK_RUN_OUT_NAME; the single-combination files the server names use it too.
 * New string (hk_free) or NULL on ENOMEM. */
char *harness_run_out_name(int size, int dist, long long seed);

/* New argv (harness_argv_free) running exe as r describes. HK_OK, HK_EINVAL (bad mode,
 * combinations, priming sizes or launch_state_check outside run mode (the last also
 * without a module), more than HK_MAX_COMBOS or
 * HK_MAX_PRIME_SIZES, a negative seed or size), HK_ENOMEM. */
int harness_run_argv(const char *exe, const harness_run *r, char ***argv);

void harness_argv_free(char **argv);

/* Stable short reason for a generated program's exit code ("ok", "cuda_error",
 * "unwritten_output", "input_modified", "out_of_bounds", "bad_arguments", "io_error",
 * "no_gpu", "internal_error", "timeout" for 124/137, "exit_N" otherwise). A static
 * string, or for "exit_N" a thread-local one valid until the thread's next call. */
const char *harness_exit_reason(int exit_code);

#endif
