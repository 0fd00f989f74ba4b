/* A block emulator for the rewrite tests: runs an ORIGINAL and a REWRITTEN kernel on the
 * CPU (no GPU here) and compares what they leave in memory. Measure, don't trust: an
 * emitted kernel that only compiles is not known to compute the same thing.
 *
 * How it runs (emu_block_rt.hpp, the C++ side): each source is compiled as host C++ by g++
 * against the CUDA headers, in namespace orig resp. cand; every block of the grid runs in
 * turn, every thread of a block is a fiber, so
 *   - __syncthreads() (and _count/_or/_and) is a real barrier of the block;
 *   - __shared__ variables (static and `extern __shared__ T x[];`, sized at launch) are the
 *     block's own, filled with 0x7f bytes before each block: a read before a write shows;
 *   - __shfl_{down,up,xor,}_sync, __ballot/__any/__all_sync, __reduce_*_sync, __syncwarp
 *     exchange among the lanes of the mask (a warp barrier); a source lane outside the mask
 *     reads poison;
 *   - __isShared(p) is whether p lies in the block's shared memory (static or dynamic);
 *     cooperative_groups' thread_block (this_thread_block(), cg::sync(b), b.sync()) is the
 *     block and its barrier (<cooperative_groups.h> itself is blanked with the includes);
 *   - atomics are plain read-modify-writes (fibers switch only at barriers);
 *   - a barrier not every thread reaches (a thread exited, or waits at another barrier or
 *     warp operation, or a mask names a lane the block lacks) stops the program with
 *     "EMU DIVERGENT ..." and both lines, instead of hanging;
 *   - emu::schedule (FORWARD, REVERSE, SHUFFLED) is the order threads run between two
 *     barriers: a missing barrier that one order hides shows under another.
 * __ldg and the cache-hint loads, __restrict__, __launch_bounds__, __device__,
 * __forceinline__, device math and the half/bf16 intrinsics of cuda_fp16.h/cuda_bf16.h work.
 *
 * The API (C, for cmocka tests):
 *   emu_available()             g++ and the CUDA headers are there (else skip);
 *   emu_expect(&prog, want)     emu_run that must give want (prints the log otherwise);
 *   emu_run(&prog, log, n)      writes DIR/emu_TAG.cpp = runtime + orig's device text +
 *                               cand's device text + HELPERS + main() { DRIVER }, compiles
 *                               and runs it;
 *                               returns EMU_OK, EMU_DIFFERS, EMU_DIVERGENT, EMU_NO_BUILD or
 *                               EMU_CRASHED, with the program's output (or g++'s) in log.
 * The device text of a source is the whole source with its #include lines and its host
 * launchers (functions with a <<<>>> launch, per the analysis model) blanked, line numbers
 * kept (#line: messages name the source's own lines, "orig:12").
 * The DRIVER is C++ statements run in main(), with, from emu_block_rt.hpp:
 *   emu::buf<T> b(n); b.fill(seed) / b.fill_mod(seed, range) / b.set(v)   (T * when passed)
 *   emu::launch(dim3 grid, dim3 block, size_t dyn_smem, [&] { orig::k(b, n); });
 *   emu::expect("what", want, got[, rtol[, scale]])   exact (rtol 0: bit for bit or ==)
 *       or within rtol * max(|want|, scale) (a float sum of n terms of size m: scale n * m,
 *       since it may cancel); NaN never passes; a failure makes the run EMU_DIFFERS.
 * Each kernel gets the grid and block its own launch needs (a rewrite may change them).
 * For the tests: emu_rewrite (a registry rewrite's text, which must apply) and emu_replaced
 * (a text with one string replaced: how a test breaks an emitted kernel on purpose).
 * Include after <cmocka.h> (asserts) and rw_fixture.h (fixture, load_text, kernel); the
 * registry it needs is included here. CMake defines
 * HK_TEST_DATA (the runtime is found next to it, in ../unit) and HK_BINARY_DIR (where a
 * failed program is kept, as emu_failed_TAG.cpp). */
#ifndef HK_TESTS_EMU_BLOCK_H
#define HK_TESTS_EMU_BLOCK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hk.h"
#include "rewrites/registry.h"
#include "test_nvcc.h" /* TEST_CXX */

/* g++, through the suite's compile cache when the run has one (test_nvcc.h's TEST_CXX):
 * a program is the same text in the ASan pass, and its build is most of an emulation. */
#define EMU_CXX TEST_CXX
/* g++'s flags and the CUDA headers' folder: tests/CMakeLists.txt's, which precompiles the
 * runtime with the same ones (HK_EMU_CXX_FLAGS, HK_EMU_CUDA_INCLUDE). */
#if !defined(HK_EMU_CXX_FLAGS) || !defined(HK_EMU_CUDA_INCLUDE)
#error "emu_block.h wants HK_EMU_CXX_FLAGS and HK_EMU_CUDA_INCLUDE (tests/CMakeLists.txt)"
#endif
#define EMU_CUDA_INCLUDE HK_EMU_CUDA_INCLUDE
#define EMU_RUNTIME_DIR HK_TEST_DATA "/../unit"
#define EMU_RUNTIME EMU_RUNTIME_DIR "/emu_block_rt.hpp"
/* A program includes the runtime by name, found in the -I folders: first EMU_PCH_DIR,
 * where the build put the runtime precompiled (emu_block_rt.hpp.gch: g++ reads it instead
 * of parsing the runtime and the CUDA headers again, about 0.6 s of CPU a program; one it
 * cannot use, or none, and it reads the header), then the runtime's own folder. By name,
 * not by path, and each folder an argument of its own after "-I": the compile cache's key
 * holds a folder argument as "a folder" and the runtime by its content, so the program is
 * the same compile from either build folder (a joined -I/build/... is text to the key, and
 * the ASan pass missed every emulation: measured). */
#define EMU_PCH_DIR HK_BINARY_DIR "/test-tools/emu-pch"
#define EMU_BUILD_FLAGS \
    HK_EMU_CXX_FLAGS " -I '" EMU_PCH_DIR "' -I '" EMU_RUNTIME_DIR "' -I" EMU_CUDA_INCLUDE

enum { EMU_OK = 0, EMU_DIFFERS = 1, EMU_DIVERGENT = 3, EMU_NO_BUILD = 10, EMU_CRASHED = 11 };

typedef struct {
    const char *dir;        /* scratch directory for the program and its binary */
    const char *tag;        /* file name part: emu_<tag>.cpp */
    const char *orig;       /* the original source (its whole text) */
    size_t orig_len;
    const char *cand;       /* the rewritten source */
    size_t cand_len;
    const char *helpers;    /* C++ before main() (templates the driver calls), or NULL */
    const char *driver;     /* C++ statements: main()'s body */
} emu_program;

/* g++ and the CUDA headers are installed. */
static inline bool emu_available(void)
{
    return access(EMU_CUDA_INCLUDE "/cuda_fp16.h", R_OK) == 0 && access(EMU_RUNTIME, R_OK) == 0 &&
           system("g++ --version >/dev/null 2>&1") == 0;
}

/* A test without g++ or the CUDA headers is skipped, saying so. */
#define SKIP_WITHOUT_EMULATOR()                                                 \
    do {                                                                        \
        if (!emu_available()) {                                                 \
            print_message("skipped: no g++ or no CUDA headers to emulate on\n"); \
            skip();                                                             \
        }                                                                       \
    } while (0)

/* Blanks [s, e) of t except its newlines (line numbers stay). */
static inline void emu_blank(char *t, size_t s, size_t e)
{
    for (size_t i = s; i < e; i++)
        if (t[i] != '\n')
            t[i] = ' ';
}

static inline bool emu_is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Writes `extern __shared__ TYPE NAME[];` (at t, up to its ';') to f as a pointer into the
 * launch's dynamic shared memory, __align__(n)/alignas(n) dropped from TYPE; returns the
 * bytes consumed, 0 when t is not such a declaration. */
static inline size_t emu_dynamic_shared(const char *t, FILE *f)
{
    static const char kw[] = "extern __shared__";
    if (strncmp(t, kw, sizeof kw - 1) != 0)
        return 0;
    const char *semi = strchr(t, ';');
    if (!semi)
        return 0;
    const char *br = memchr(t, '[', (size_t)(semi - t));
    if (!br)
        return 0;
    const char *ne = br;
    while (ne > t && (ne[-1] == ' ' || ne[-1] == '\t'))
        ne--;
    const char *ns = ne;
    while (ns > t && emu_is_ident(ns[-1]))
        ns--;
    char type[256] = "";
    size_t tl = 0;
    for (const char *p = t + sizeof kw - 1; p < ns && tl + 1 < sizeof type;) {
        if (strncmp(p, "__align__", 9) == 0 || strncmp(p, "alignas", 7) == 0) {
            const char *close = memchr(p, ')', (size_t)(ns - p));
            if (close) {
                p = close + 1;
                continue;
            }
        }
        type[tl++] = *p == '\n' ? ' ' : *p;
        p++;
    }
    type[tl] = '\0';
    fprintf(f, "auto %.*s = reinterpret_cast<%s *>(emu::dyn_smem);", (int)(ne - ns), ns, type);
    return (size_t)(semi + 1 - t);
}

/* Writes source text/len's device text into namespace ns of f (see the top comment). */
static inline void emu_write_source(FILE *f, const char *ns, const char *text, size_t len)
{
    char *t = malloc(len + 1);
    assert_non_null(t);
    memcpy(t, text, len);
    t[len] = '\0';
    an_model *m;
    assert_int_equal(an_analyze(t, len, &m), HK_OK);
    for (size_t i = 0; i < m->n_funcs; i++)
        if (m->funcs[i].kind == AN_LAUNCHER)
            emu_blank(t, m->funcs[i].span.start_byte, m->funcs[i].span.end_byte);
    an_model_free(m);
    for (char *p = t; (p = strstr(p, "#include")) != NULL;) {
        char *eol = strchr(p, '\n');
        size_t e = eol ? (size_t)(eol - t) : len;
        emu_blank(t, (size_t)(p - t), e);
        p = t + e;
    }
    fprintf(f, "namespace %s {\n#line 1 \"%s\"\n", ns, ns);
    for (const char *p = t; *p;) {
        size_t used = (p == t || !emu_is_ident(p[-1])) ? emu_dynamic_shared(p, f) : 0;
        if (used) {
            for (size_t i = 0; i < used; i++)   /* the declaration's own line breaks */
                if (p[i] == '\n')
                    fputc('\n', f);
            p += used;
        } else {
            fputc(*p++, f);
        }
    }
    fprintf(f, "\n}  // namespace %s\n", ns);
    free(t);
}

/* Compiles and runs p (see the top comment); log gets the program's or g++'s output
 * (up to n - 1 bytes). One of EMU_OK ... EMU_CRASHED. */
static inline int emu_run(const emu_program *p, char *log, size_t n)
{
    char src[700], exe[700], cmd[2400];
    snprintf(src, sizeof src, "%s/emu_%s.cpp", p->dir, p->tag);
    snprintf(exe, sizeof exe, "%s/emu_%s", p->dir, p->tag);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fputs("#include \"emu_block_rt.hpp\"\n", f);
    emu_write_source(f, "orig", p->orig, p->orig_len);
    emu_write_source(f, "cand", p->cand, p->cand_len);
    if (p->helpers)
        fprintf(f, "#line 1 \"helpers\"\n%s\n", p->helpers);
    fprintf(f, "#line 1 \"driver\"\nint main(void)\n{\n%s\n"
               "    puts(emu::failures ? \"EMU DIFFERS\" : \"EMU OK\");\n"
               "    return emu::failures ? 1 : 0;\n}\n", p->driver);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "%s " EMU_BUILD_FLAGS " -o '%s' '%s' 2>&1", EMU_CXX, exe, src);
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    size_t got = fread(log, 1, n - 1, pp);
    log[got] = '\0';
    if (pclose(pp) != 0)
        return EMU_NO_BUILD;
    snprintf(cmd, sizeof cmd, "'%s' 2>&1", exe);
    pp = popen(cmd, "r");
    assert_non_null(pp);
    got = fread(log, 1, n - 1, pp);
    log[got] = '\0';
    int st = pclose(pp);
    if (!WIFEXITED(st))
        return EMU_CRASHED;
    switch (WEXITSTATUS(st)) {
    case 0: return strstr(log, "EMU OK") ? EMU_OK : EMU_CRASHED;
    case 1: return EMU_DIFFERS;
    case 3: return EMU_DIVERGENT;
    default: return EMU_CRASHED;
    }
}

/* emu_run that must give want; prints the log (and the program's path) when it does not. */
static inline void emu_expect(const emu_program *p, int want)
{
    static char log[16384];
    int got = emu_run(p, log, sizeof log);
    if (got != want) {
        /* the scratch directory goes with the test: keep the program where it can be read */
        char cmd[1600];
        snprintf(cmd, sizeof cmd, "cp '%s/emu_%s.cpp' '%s/emu_failed_%s.cpp'", p->dir, p->tag, HK_BINARY_DIR,
                 p->tag);
        int kept = system(cmd);
        print_message("emulated %s: want %d, got %d:\n%s\n(program: %s/emu_failed_%s.cpp%s; built with g++ "
                      EMU_BUILD_FLAGS ")\n", p->tag, want, got, log, HK_BINARY_DIR, p->tag,
                      kept == 0 ? "" : ", not kept");
    }
    else if (want != EMU_OK)
        print_message("emulated %s (a broken kernel: expected to fail): %.300s\n", p->tag, log);
    assert_int_equal(got, want);
}

/* The program of driver over src and cand (with helpers) in dir: emu_expect of want. */
static inline void emu_run_pair(const char *dir, const char *tag, const char *src, const char *cand,
                                const char *helpers, const char *driver, int want)
{
    emu_program p = {.dir = dir, .tag = tag, .orig = src, .orig_len = strlen(src), .cand = cand,
                     .cand_len = strlen(cand), .helpers = helpers, .driver = driver};
    emu_expect(&p, want);
}

/* The registry's rewrite name of kernel kname in src (params as the registry's, NULL: all
 * defaults): applicable; the new text (malloc'd). */
static inline char *emu_rewrite(const char *src, const char *kname, const char *rewrite, const int *params)
{
    fixture fx;
    load_text(src, &fx);
    rw_context ctx = {.text = fx.text, .len = fx.len, .m = fx.m, .kernel = kernel(&fx, kname)};
    rw_result r;
    rw_refusal why;
    assert_int_equal(rw_apply_named(rewrite, &ctx, params, &r, &why), HK_OK);
    if (!r.applicable)
        print_message("%s of %s: %s\n", rewrite, kname, r.description);
    assert_true(r.applicable);
    char *text = strdup(r.text);
    assert_non_null(text);
    rw_result_free(&r);
    unload(&fx);
    return text;
}

/* text with every from replaced by to (malloc'd): e.g. a wild file's include guards renamed,
 * so that its original and a rewrite of it can stand in one emulation program. */
static inline char *emu_replaced_all(const char *text, const char *from, const char *to)
{
    size_t n = 0, fl = strlen(from), tl = strlen(to);
    for (const char *p = strstr(text, from); p; p = strstr(p + fl, from))
        n++;
    char *out = malloc(strlen(text) + n * tl + 1), *o = out;
    assert_non_null(out);
    for (const char *p = text;;) {
        const char *at = strstr(p, from);
        size_t k = at ? (size_t)(at - p) : strlen(p);
        memcpy(o, p, k);
        o += k;
        if (!at)
            break;
        memcpy(o, to, tl);
        o += tl;
        p = at + fl;
    }
    *o = '\0';
    return out;
}

/* Replaces the first occurrence of from in text (malloc'd) by to; fails when absent. */
static inline char *emu_replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        print_message("no `%s` to break in\n%s\n", from, text);
    assert_non_null(at);
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    assert_non_null(out);
    snprintf(out, n + 1, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

#endif
