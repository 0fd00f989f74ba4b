/* hostcode.c: the host-code policy on a realistic baseline (kernel, launcher, main,
 * includes, a #define): device-only changes pass, each kind of host code or harness-aimed
 * preprocessor line is found at its exact line with its quote, and the scanner is not
 * fooled by braces in strings and comments, splices, digraphs or conditionals. Expected
 * lines are computed from where the offending text sits in the candidate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "measure/hostcode.h"
#include "said_zh.h"

static const char BASE[] =
    "#include <cstdio>\n"
    "#include <cuda_runtime.h>\n"
    "#define BLOCK 256\n"
    "\n"
    "// y = a * x { not structure }\n"
    "__global__ void scale(const float *x, float *y, float a, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i];\n"
    "}\n"
    "\n"
    "static const char *banner = \"scale { v1 }\";\n"
    "\n"
    "void launch(const float *x, float *y, float a, int n)\n"
    "{\n"
    "    scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, y, a, n);\n"
    "}\n"
    "\n"
    "int main(void)\n"
    "{\n"
    "    int n = 1 << 20;\n"
    "    float *x, *y;\n"
    "    cudaMalloc(&x, n * sizeof(float));\n"
    "    cudaMalloc(&y, n * sizeof(float));\n"
    "    cudaEvent_t a, b;\n"
    "    cudaEventCreate(&a);\n"
    "    cudaEventCreate(&b);\n"
    "    cudaEventRecord(a);\n"
    "    launch(x, y, 2.0f, n);\n"
    "    cudaEventRecord(b);\n"
    "    cudaEventSynchronize(b);\n"
    "    printf(\"%s done\\n\", banner);\n"
    "    return 0;\n"
    "}\n";

/* New text: s with the first occurrence of old replaced by new (old must occur). */
static char *replace(const char *s, const char *old, const char *repl)
{
    const char *at = strstr(s, old);
    assert_non_null(at);
    size_t a = (size_t)(at - s), ol = strlen(old), rl = strlen(repl), n = strlen(s);
    char *out = malloc(n - ol + rl + 1);
    assert_non_null(out);
    memcpy(out, s, a);
    memcpy(out + a, repl, rl);
    memcpy(out + a + rl, at + ol, n - a - ol + 1);
    return out;
}

/* New text: s with text inserted before the first occurrence of marker. */
static char *insert_before(const char *s, const char *marker, const char *text)
{
    size_t ml = strlen(marker), tl = strlen(text);
    char *both = malloc(tl + ml + 1);
    assert_non_null(both);
    memcpy(both, text, tl);
    memcpy(both + tl, marker, ml + 1);
    char *out = replace(s, marker, both);
    free(both);
    return out;
}

/* 1-based line of the first occurrence of needle in s. */
static unsigned line_of(const char *s, const char *needle)
{
    const char *at = strstr(s, needle);
    assert_non_null(at);
    unsigned line = 1;
    for (const char *p = s; p < at; p++)
        line += *p == '\n';
    return line;
}

static void expect_clean(const char *cand)
{
    hostcode_finding f;
    assert_int_equal(hostcode_check(BASE, strlen(BASE), cand, strlen(cand), &f), HK_OK);
    if (f.found)
        fail_msg("unexpected finding at line %u: %s -- %s", f.line, f.why, f.quote);
    hostcode_finding_clear(&f);
}

/* A finding at the line where line_needle is, quoting quote, for the reason why. */
static void expect_finding(const char *cand, const char *line_needle, const char *quote,
                           const char *why)
{
    hostcode_finding f;
    assert_int_equal(hostcode_check(BASE, strlen(BASE), cand, strlen(cand), &f), HK_OK);
    if (!f.found)
        fail_msg("no finding, expected: %s", why);
    if (f.line != line_of(cand, line_needle))
        fail_msg("finding at line %u, expected %u: %s -- %s", f.line, line_of(cand, line_needle),
                 f.why, f.quote);
    assert_string_equal(f.quote, quote);
    assert_string_equal(f.why, why);
    hostcode_finding_clear(&f);
}

static void test_identical_and_kernel_changes(void **state)
{
    (void)state;
    expect_clean(BASE);
    char *c = replace(BASE, "y[i] = a * x[i];", "y[i] = __fmul_rn(x[i], a);");
    expect_clean(c);
    free(c);
    /* host code reformatted and recommented: tokens compare equal */
    c = replace(BASE, "void launch(const float *x, float *y, float a, int n)\n{",
                "void launch(const float* x,float* y,float a,int n) /* same */ {");
    expect_clean(c);
    free(c);
    /* the kernel rewritten with a grid-stride loop and an unroll pragma */
    c = replace(BASE, "    if (i < n)\n        y[i] = a * x[i];\n",
                "#pragma unroll 4\n"
                "    for (; i < n; i += gridDim.x * blockDim.x)\n"
                "        y[i] = a * x[i];\n");
    expect_clean(c);
    free(c);
}

static void test_device_additions(void **state)
{
    (void)state;
    char *c = insert_before(BASE, "__global__ void scale",
                            "#include <cuda_fp16.h>\n"
                            "#include <cuda/std/cmath>\n"
                            "#define TILE 128\n"
                            "constexpr int kTile = 128;\n"
                            "static const float kThird = 1.0f / 3;\n"
                            "const unsigned kMask = (unsigned)(sizeof(float) * 8 - 1);\n"
                            "struct Pair { float a, b; };\n"
                            "typedef struct { int lo, hi; } Range;\n"
                            "template <typename T, int N = 2>\n"
                            "__device__ __forceinline__ T twice(T v) { return v * N; }\n"
                            "namespace sq_ns { __host__ __device__ inline float sq(float v) "
                            "{ return v * v; } }\n"
                            "__device__ float dtable[4] = {1, 2, 3, 4};\n"
                            "__constant__ float coef[2];\n"
                            "extern __shared__ float dyn[];\n"
                            "__device__ float helper(float v);\n"
                            "static_assert(sizeof(Pair) == 8, \"pair\");\n"
                            "namespace dev {\n"
                            "__device__ int clamp(int v) { return v < 0 ? 0 : v; }\n"
                            "}\n");
    char *d = replace(c, "    if (i < n)\n",
                      "    __shared__ float buf[kTile];\n"
                      "    _Pragma(\"unroll\")\n"
                      "    for (int k = 0; k < 2; k++)\n"
                      "        buf[k] = twice<float>(sq(kThird));\n"
                      "#pragma unroll\n"
                      "    for (int k = 0; k < 2; k++) {\n"
                      "#pragma nounroll\n"
                      "        buf[k] += 1.0f;\n"
                      "    }\n"
                      "    if (i < n)\n");
    expect_clean(d);
    free(c);
    free(d);
}

static void test_host_functions(void **state)
{
    (void)state;
    char *c = insert_before(BASE, "int main(void)", "void helper(void) { puts(\"x\"); }\n\n");
    expect_finding(c, "void helper", "void helper(void) { puts(\"x\"); }",
                   "a host function that the baseline does not have");
    free(c);
    c = replace(BASE, "return 0;", "return 1;");
    expect_finding(c, "int main(void)", "int main(void)",
                   "a host function that differs from the baseline's (main)");
    free(c);
    /* a constexpr function is host code too */
    c = insert_before(BASE, "__global__", "constexpr int twice(int v) { return 2 * v; }\n");
    expect_finding(c, "constexpr int twice", "constexpr int twice(int v) { return 2 * v; }",
                   "a host function that the baseline does not have");
    free(c);
}

static void test_static_constructors(void **state)
{
    (void)state;
    char *c = insert_before(BASE, "int main(void)", "static int hook = (init_hook(), 0);\n");
    expect_finding(c, "static int hook", "static int hook = (init_hook(), 0);",
                   "a host variable with a dynamic initializer (runs before main)");
    free(c);
    c = insert_before(BASE, "void launch",
                      "__attribute__((constructor)) static void early(void)\n{\n    setenv(\"X\", "
                      "\"1\", 1);\n}\n");
    expect_finding(c, "__attribute__((constructor))",
                   "__attribute__((constructor)) static void early(void)",
                   "__attribute__((constructor)) runs host code before main");
    free(c);
    /* on a device function it is still a finding */
    c = insert_before(BASE, "__global__",
                      "__device__ __attribute__((destructor)) void late(void) {}\n");
    expect_finding(c, "__device__ __attribute__", "__device__ __attribute__((destructor)) void "
                                                  "late(void) {}",
                   "__attribute__((destructor)) runs host code after main");
    free(c);
    /* a struct with a static inline member is a host variable */
    c = insert_before(BASE, "__global__",
                      "struct Reg {\n    static inline int id = register_me();\n};\n");
    expect_finding(c, "static inline", "static inline int id = register_me();",
                   "a static inline member (a host variable that the baseline does not have)");
    free(c);
    c = insert_before(BASE, "__global__", "struct Obj { int v; } obj;\n");
    expect_finding(c, "struct Obj", "struct Obj { int v; } obj;",
                   "a host variable that the baseline does not have");
    free(c);
}

static void test_harness_defines(void **state)
{
    (void)state;
    char *c = insert_before(BASE, "__global__", "#define cudaEventRecord(...) cudaSuccess\n");
    expect_finding(c, "#define cudaEventRecord", "#define cudaEventRecord(...) cudaSuccess",
                   "#define of a name the harness uses (cudaEventRecord)");
    free(c);
    c = insert_before(BASE, "__global__", "#define hk_time 0.001\n");
    expect_finding(c, "#define hk_time", "#define hk_time 0.001",
                   "#define of a name the harness uses (hk_time)");
    free(c);
    /* the digraph spelling of # and a continued line are the same directive */
    c = insert_before(BASE, "__global__", "%:  define \\\n  clock_gettime(a, b) 0\n");
    expect_finding(c, "%:", "%:  define \\", "#define of a name the harness uses (clock_gettime)");
    free(c);
    c = insert_before(BASE, "__global__", "#undef __syncthreads\n");
    expect_finding(c, "#undef", "#undef __syncthreads",
                   "#undef of a keyword, builtin or reserved name (__syncthreads)");
    free(c);
    c = insert_before(BASE, "__global__", "#define threadIdx blockIdx\n");
    expect_finding(c, "#define threadIdx", "#define threadIdx blockIdx",
                   "#define of a keyword, builtin or reserved name (threadIdx)");
    free(c);
    /* BLOCK is the baseline's and the launcher uses it: changing it changes host code */
    c = insert_before(BASE, "__global__", "#undef BLOCK\n#define BLOCK 1024\n");
    expect_finding(c, "#undef BLOCK", "#undef BLOCK", "#undef of a name the host code uses (BLOCK)");
    free(c);
    c = insert_before(BASE, "__global__", "#define STR(x) #x\n");
    expect_finding(c, "#define STR", "#define STR(x) #x",
                   "a macro that stringifies or pastes tokens (the scan cannot see what it makes)");
    free(c);
    /* a bracket only the compiler sees (session 29): `#define RP )` closes the kernel's
     * `if ((i < n) RP` for the compiler, while the scan stays a parenthesis deep to the end
     * of the text and took the host code after the kernel (a printf in a static
     * initializer) for part of it */
    static const char *const unbalanced[][2] = {
        {"#define RP )\n", "if ((i < n) RP"},
        {"#define OPEN(x) x [\n", "if (i < n)"},
        {"#define END }\n", "if (i < n)"},
        {"#define CLOSE_OPEN ) (\n", "if (i < n)"},
    };
    for (size_t i = 0; i < sizeof unbalanced / sizeof unbalanced[0]; i++) {
        char *k = replace(BASE, "if (i < n)", unbalanced[i][1]);
        c = insert_before(k, "__global__", unbalanced[i][0]);
        free(k);
        char *d = replace(c, "static const char *banner", "static int boot = printf(\"x\");\n"
                                                           "static const char *banner");
        char quote[64];
        snprintf(quote, sizeof quote, "%.*s", (int)strlen(unbalanced[i][0]) - 1, unbalanced[i][0]);
        expect_finding(d, unbalanced[i][0], quote,
                       "a macro whose brackets do not balance (the scan would read the code "
                       "around its uses in another shape than the compiler)");
        free(c);
        free(d);
    }
    /* balanced brackets in a macro are fine */
    c = insert_before(BASE, "__global__", "#define SQ(x) ((x) * (x))\n#define IDX(a) [a]\n");
    expect_clean(c);
    free(c);
}

/* A HIP baseline (host code of its own: hipLaunchKernelGGL, a HIP_ macro) judged the same
 * way for a DCU build: a kernel change is clean; HIP's runtime names (hip + uppercase) are
 * the harness's (a DCU launcher calls hipEventRecord, hipModuleLaunchKernel ...); new host
 * code is host code whatever the vendor. */
static void test_hip_candidates(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/analysis/vadd.hip", HK_TEST_DATA);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    static char base[8192];
    size_t bl = fread(base, 1, sizeof base - 1, fp);
    fclose(fp);
    base[bl] = '\0';
    struct {
        const char *marker, *insert, *quote, *why; /* why NULL: clean */
    } cases[] = {
        { "    if (i < n) c[i]", "    i = i ^ 0;\n", NULL, NULL },
        { "__global__ void vadd", "#define hipEventRecord(...) hipSuccess\n",
          "#define hipEventRecord(...) hipSuccess",
          "#define of a name the harness uses (hipEventRecord)" },
        { "__global__ void vadd", "#undef hipModuleLaunchKernel\n", "#undef hipModuleLaunchKernel",
          "#undef of a name the harness uses (hipModuleLaunchKernel)" },
        /* names that only start with the letters are the user's (HIP_BLOCK is the baseline's) */
        { "__global__ void vadd", "#define hipster 3\n", NULL, NULL },
        { "__global__ void vadd", "#define HIP_TILE 32\n", NULL, NULL },
        { "void run", "__attribute__((constructor)) static void early(void) { hipDeviceReset(); }\n",
          "__attribute__((constructor)) static void early(void) { hipDeviceReset(); }",
          "__attribute__((constructor)) runs host code before main" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *c = insert_before(base, cases[i].marker, cases[i].insert);
        hostcode_finding f;
        assert_int_equal(hostcode_check(base, bl, c, strlen(c), &f), HK_OK);
        if (!cases[i].why) {
            if (f.found)
                fail_msg("case %zu: unexpected finding: %s -- %s", i, f.why, f.quote);
        } else {
            if (!f.found)
                fail_msg("case %zu: no finding, expected: %s", i, cases[i].why);
            assert_int_equal(f.line, line_of(c, cases[i].insert));
            assert_string_equal(f.quote, cases[i].quote);
            assert_string_equal(f.why, cases[i].why);
        }
        hostcode_finding_clear(&f);
        free(c);
    }
}

static void test_includes_and_lines(void **state)
{
    (void)state;
    char *c = insert_before(BASE, "__global__", "#include \"/work/refs/out.bin\"\n");
    expect_finding(c, "#include \"/work", "#include \"/work/refs/out.bin\"",
                   "#include of a file outside the system include paths");
    free(c);
    c = insert_before(BASE, "__global__", "#include \"../ref/x\"\n");
    expect_finding(c, "#include \"../", "#include \"../ref/x\"",
                   "#include of a file outside the system include paths");
    free(c);
    c = insert_before(BASE, "__global__", "#include <../../work/refs/out.h>\n");
    expect_finding(c, "#include <../", "#include <../../work/refs/out.h>",
                   "#include of a file outside the system include paths");
    free(c);
    /* angle includes search every -I folder, the spec's (the user's project) among them:
     * only header names pass, never a dot file or a data file whose bytes the compiler's
     * errors would quote back (session 30) */
    static const char *const not_headers[] = {
        "#include <.env>\n", "#include <.git/config>\n", "#include <work/.hyperkernel/x.h>\n",
        "#include <work/ref/run-s0-d0-seed1.out>\n", "#include <secrets.txt>\n",
        "#include <id_rsa>\n", "#include <proc/self/environ>\n", "#include <expected.inc>\n",
        NULL};
    for (size_t i = 0; not_headers[i]; i++) {
        c = insert_before(BASE, "__global__", not_headers[i]);
        char quote[128];
        snprintf(quote, sizeof quote, "%.*s", (int)strlen(not_headers[i]) - 1, not_headers[i]);
        expect_finding(c, quote, quote,
                       "#include of a file that is not a header (its bytes would be compiled "
                       "in, or quoted back by the compiler's errors)");
        free(c);
    }
    static const char *const headers[] = {
        "#include <cuda_fp16.h>\n", "#include <cooperative_groups/reduce.h>\n",
        "#include <cuda/std/cmath>\n", "#include <type_traits>\n", "#include <cub/cub.cuh>\n",
        "#include <nv/target>\n", "#include <thrust/device_vector.h>\n", NULL};
    for (size_t i = 0; headers[i]; i++) {
        c = insert_before(BASE, "__global__", headers[i]);
        expect_clean(c);
        free(c);
    }
    c = insert_before(BASE, "__global__", "#include \"kernel_helpers.cuh\"\n");
    expect_finding(c, "#include \"kernel", "#include \"kernel_helpers.cuh\"",
                   "#include of a file the baseline does not include");
    free(c);
    c = insert_before(BASE, "__global__", "#embed \"/work/refs/out.bin\"\n");
    expect_finding(c, "#embed", "#embed \"/work/refs/out.bin\"",
                   "#embed reads a file at compile time");
    free(c);
    c = insert_before(BASE, "__global__", "#line 1 \"harness.h\"\n");
    expect_finding(c, "#line", "#line 1 \"harness.h\"",
                   "#line changes the file name and lines the compiler reports");
    free(c);
    c = insert_before(BASE, "__global__", "#pragma GCC poison printf\n");
    expect_finding(c, "#pragma GCC", "#pragma GCC poison printf",
                   "a #pragma the baseline does not have");
    free(c);
    c = replace(BASE, "        y[i] = a * x[i];\n",
                "        _Pragma(\"GCC diagnostic ignored \\\"-Wall\\\"\") y[i] = a * x[i];\n");
    expect_finding(c, "_Pragma", "_Pragma(\"GCC diagnostic ignored \\\"-Wall\\\"\") y[i] = a * x[i];",
                   "a _Pragma the baseline does not have");
    free(c);
}

static void test_incbin(void **state)
{
    (void)state;
    char *c = insert_before(BASE, "__global__",
                            "__device__ void leak(void)\n"
                            "{\n"
                            "    asm(\".incbin \\\"/etc/passwd\\\"\");\n"
                            "}\n");
    expect_finding(c, "    asm(", "asm(\".incbin \\\"/etc/passwd\\\"\");",
                   "asm .incbin reads a file at compile time");
    free(c);
    /* split over adjacent literals and spelled with escapes */
    c = insert_before(BASE, "__global__",
                      "__device__ void leak(void)\n"
                      "{\n"
                      "    asm volatile(\".in\" \"c\\x62IN /etc/passwd\");\n"
                      "}\n");
    expect_finding(c, "    asm volatile", "asm volatile(\".in\" \"c\\x62IN /etc/passwd\");",
                   "asm .incbin reads a file at compile time");
    free(c);
    c = insert_before(BASE, "__global__",
                      "__device__ void leak2(void) { asm(STR(.include \"/etc/passwd\")); }\n");
    expect_finding(c, "__device__ void leak2", "__device__ void leak2(void) { asm(STR(.include "
                                               "\"/etc/passwd\")); }",
                   "asm .include reads a file at compile time");
    free(c);
}

static void test_host_variables(void **state)
{
    (void)state;
    char *c = insert_before(BASE, "void launch", "float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n");
    expect_finding(c, "float table", "float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};",
                   "a host variable that the baseline does not have");
    free(c);
    c = insert_before(BASE, "void launch", "int counter;\n");
    expect_finding(c, "int counter", "int counter;", "a host variable that the baseline does not have");
    free(c);
    c = insert_before(BASE, "void launch", "const float kBad = compute_scale();\n");
    expect_finding(c, "const float kBad", "const float kBad = compute_scale();",
                   "a host variable with a dynamic initializer (runs before main)");
    free(c);
    /* the baseline's host variable changed */
    c = replace(BASE, "scale { v1 }", "scale { v2 }");
    expect_finding(c, "static const char *banner", "static const char *banner = \"scale { v2 }\";",
                   "a host variable that the baseline does not have");
    free(c);
    c = insert_before(BASE, "void launch", "asm(\".globl hk_hook\");\n");
    expect_finding(c, "asm(\".globl", "asm(\".globl hk_hook\");",
                   "host code that the baseline does not have");
    free(c);
}

static void test_strings_comments_do_not_confuse(void **state)
{
    (void)state;
    const char *dev = "__device__ const char *tag(void)\n"
                      "{\n"
                      "    /* } int evil = f(); { */\n"
                      "    // } void evil2() {\n"
                      "    char c = '}';\n"
                      "    const char *r = R\"x( } void evil3() { )x\";\n"
                      "    (void)c; (void)r;\n"
                      "    return \"} static int z = g(); {\";\n"
                      "}\n"
                      "// a commented-out host function, continued: \\\n"
                      "void evil4() { }\n";
    char *c = insert_before(BASE, "__global__", dev);
    expect_clean(c);
    char *d = insert_before(c, "__global__", "void after_strings(void) { }\n");
    expect_finding(d, "void after_strings", "void after_strings(void) { }",
                   "a host function that the baseline does not have");
    free(c);
    free(d);
    /* digraph braces are braces */
    c = insert_before(BASE, "__global__", "__device__ int dg(int v) <% return v; %>\nint leak;\n");
    expect_finding(c, "int leak", "int leak;", "a host variable that the baseline does not have");
    free(c);
}

static void test_namespaces(void **state)
{
    (void)state;
    char *c = insert_before(BASE, "void launch",
                            "namespace util {\n"
                            "__device__ float half_of(float v) { return v / 2; }\n"
                            "int host_helper(int v)\n"
                            "{\n"
                            "    return v * 2;\n"
                            "}\n"
                            "}\n");
    expect_finding(c, "int host_helper", "int host_helper(int v)",
                   "a host function that the baseline does not have");
    free(c);
    c = insert_before(BASE, "void launch",
                      "extern \"C\" {\n"
                      "__global__ void scale2(float *y) { y[0] = 0; }\n"
                      "void run2(void) {}\n"
                      "}\n");
    expect_finding(c, "void run2", "void run2(void) {}",
                   "a host function that the baseline does not have");
    free(c);
}

static void test_conditionals_and_macros(void **state)
{
    (void)state;
    /* the scan reads both branches; a branch that closes a brace could hide host code */
    char *c = insert_before(BASE, "void launch",
                            "#if 0\n"
                            "__device__ void fake() {\n"
                            "#endif\n"
                            "static int evil = run();\n"
                            "#if 0\n"
                            "}\n"
                            "#endif\n");
    expect_finding(c, "#if 0", "#if 0", "a conditional directive the baseline does not have");
    free(c);
    /* a conditional of the baseline's around a device keyword */
    static const char base2_add[] = "#ifdef USE_DEV\n#endif\n";
    char *base2 = insert_before(BASE, "__global__", base2_add);
    char *moved = replace(base2, base2_add, "");
    c = insert_before(moved, "void launch", "#ifdef USE_DEV\n__device__\n#endif\nvoid sneaky() {}\n");
    free(moved);
    hostcode_finding f;
    assert_int_equal(hostcode_check(base2, strlen(base2), c, strlen(c), &f), HK_OK);
    assert_true(f.found);
    assert_int_equal(f.line, line_of(c, "#endif\nvoid sneaky") );
    assert_string_equal(f.why, "a conditional directive inside a declaration (the scan cannot "
                               "tell which branch is compiled)");
    hostcode_finding_clear(&f);
    free(c);
    /* a macro that expands to a declaration, used outside a body */
    c = insert_before(base2, "void launch",
                      "#define DECL static int evil = run();\n"
                      "DECL __device__ void ok_looking(void) {}\n");
    assert_int_equal(hostcode_check(base2, strlen(base2), c, strlen(c), &f), HK_OK);
    assert_true(f.found);
    assert_int_equal(f.line, line_of(c, "DECL __device__"));
    assert_string_equal(f.why, "a macro that expands to declarations used outside a function "
                               "body (DECL)");
    hostcode_finding_clear(&f);
    free(c);
    /* the same macro inside a device body is device code */
    c = insert_before(base2, "void launch",
                      "#define SWAP(a, b) { float t_ = a; a = b; b = t_; }\n"
                      "__device__ void sw(float &a, float &b) { SWAP(a, b); }\n");
    assert_int_equal(hostcode_check(base2, strlen(base2), c, strlen(c), &f), HK_OK);
    assert_false(f.found);
    free(c);
    free(base2);
    /* include guards and a balanced conditional in a body are fine when the baseline has them */
    static const char guarded[] = "#ifndef K_H\n#define K_H\n__device__ int k1(int v)\n{\n"
                                  "#ifdef FAST\n    return v;\n#else\n    return v + 0;\n#endif\n}\n"
                                  "#endif\n";
    char *g2 = replace(guarded, "return v;", "return v * 1;");
    assert_int_equal(hostcode_check(guarded, strlen(guarded), g2, strlen(g2), &f), HK_OK);
    assert_false(f.found);
    free(g2);
}

static void test_trigraphs_nul_splices(void **state)
{
    (void)state;
    char *c = insert_before(BASE, "__global__", "__device__ int tri(void) { return 1; } // ?\?/\n");
    expect_finding(c, "__device__ int tri", "__device__ int tri(void) { return 1; } // ?\?/",
                   "a trigraph (??x), which some compilers read as another character");
    free(c);
    static const char nul[] = "__device__ int z;\n\0int q;\n";
    hostcode_finding f;
    assert_int_equal(hostcode_check(BASE, strlen(BASE), nul, sizeof nul - 1, &f), HK_OK);
    assert_true(f.found);
    assert_int_equal(f.line, 2);
    assert_string_equal(f.why, "a NUL byte in the text");
    hostcode_finding_clear(&f);
    c = insert_before(BASE, "__global__",
                      "__device__ const char *r = R\"x( )x\\\n\" ; )x\"; static int e = f(); // \"\n");
    expect_finding(c, "__device__ const char *r", "__device__ const char *r = R\"x( )x\\",
                   "a raw string with a backslash-newline inside (compilers read it differently)");
    free(c);
}

static void test_line_ends_and_bom(void **state)
{
    (void)state;
    /* a lone CR ends a line (and the // comment) for GCC */
    hostcode_finding f;
    char *c = insert_before(BASE, "__global__",
                            "__device__ int cr; // note\r#define cudaEventRecord(e) 0\n");
    assert_int_equal(hostcode_check(BASE, strlen(BASE), c, strlen(c), &f), HK_OK);
    assert_true(f.found);
    assert_int_equal(f.line, line_of(c, "__device__ int cr") + 1); /* the compiler's count */
    assert_string_equal(f.quote, "#define cudaEventRecord(e) 0");
    assert_string_equal(f.why, "#define of a name the harness uses (cudaEventRecord)");
    hostcode_finding_clear(&f);
    free(c);
    /* CR LF line ends and a splice before CR LF */
    c = insert_before(BASE, "__global__", "__device__ int crlf;\r\n#define \\\r\nhk_x 1\r\n");
    expect_finding(c, "#define \\", "#define \\", "#define of a name the harness uses (hk_x)");
    free(c);
    /* a byte order mark does not hide the first line's directive */
    static const char bom[] = "\xef\xbb\xbf#define cudaFree(p) 0\n__device__ int z;\n";
    assert_int_equal(hostcode_check(BASE, strlen(BASE), bom, strlen(bom), &f), HK_OK);
    assert_true(f.found);
    assert_int_equal(f.line, 1);
    assert_string_equal(f.why, "#define of a name the harness uses (cudaFree)");
    hostcode_finding_clear(&f);
    /* the extern "C" guard idiom of a baseline is the baseline's */
    static const char guard[] = "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
                                "__global__ void k(float *y) { y[0] = 1; }\n"
                                "void run(float *y) { k<<<1, 1>>>(y); }\n"
                                "#ifdef __cplusplus\n}\n#endif\n";
    c = replace(guard, "y[0] = 1;", "y[0] = 2;");
    assert_int_equal(hostcode_check(guard, strlen(guard), c, strlen(c), &f), HK_OK);
    assert_false(f.found);
    free(c);
}

static void test_quote_cap_and_args(void **state)
{
    (void)state;
    char longline[600];
    int n = snprintf(longline, sizeof longline, "int wide_%0400d;\n", 7);
    assert_true(n > 400);
    char *c = insert_before(BASE, "void launch", longline);
    hostcode_finding f;
    assert_int_equal(hostcode_check(BASE, strlen(BASE), c, strlen(c), &f), HK_OK);
    assert_true(f.found);
    assert_int_equal(strlen(f.quote), HOSTCODE_QUOTE_MAX + 3);
    assert_memory_equal(f.quote + HOSTCODE_QUOTE_MAX, "...", 3);
    hostcode_finding_clear(&f);
    hostcode_finding_clear(NULL);
    free(c);
    assert_int_equal(hostcode_check(NULL, 0, "", 0, &f), HK_EINVAL);
    assert_false(f.found);
    assert_int_equal(hostcode_check("", 0, NULL, 0, &f), HK_EINVAL);
    assert_int_equal(hostcode_check("", 0, "", 0, NULL), HK_EINVAL);
    assert_int_equal(hostcode_check("", 0, "", 0, &f), HK_OK);
    assert_false(f.found);
    assert_int_equal(hostcode_check("", 0, "", HOSTCODE_TEXT_MAX + 1, &f), HK_ETOOBIG);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    char *bad = insert_before(BASE, "int main(void)", "void helper(void) { puts(\"x\"); }\n");
    char *good = insert_before(BASE, "__global__",
                               "namespace dev { __device__ int two(int n) {\n"
                               "    int s = 0; _Pragma(\"unroll\") for (int i = 0; i < n; i++) s++;\n"
                               "    return s; } }\n#define TILE 64\n");
    const char *cands[] = {bad, good};
    for (size_t which = 0; which < 2; which++) {
        long live = hk_alloc_live();
        bool done = false;
        for (long k = 1; k < 100000 && !done; k++) {
            hostcode_finding f;
            hk_alloc_fail_after(k);
            int rc = hostcode_check(BASE, strlen(BASE), cands[which], strlen(cands[which]), &f);
            hk_alloc_fail_after(0);
            assert_true(rc == HK_OK || rc == HK_ENOMEM);
            if (rc == HK_ENOMEM) {
                assert_false(f.found);
                assert_null(f.quote);
                assert_null(f.why);
            } else {
                assert_int_equal(f.found, which == 0);
                done = true;
            }
            hostcode_finding_clear(&f);
            assert_int_equal(hk_alloc_live(), live);
        }
        assert_true(done);
    }
    free(bad);
    free(good);
}

/* Session 40: a finding's why is stored in English (the episode's "line N: WHY: QUOTE", a
 * version's reject_details) and said again in zh-CN where shown (hk_tr_said): a plain why,
 * one with the name it is about, and the wrapper's line number; English is what it was. */
static void said_zh_of(const char *cand, const char *why_en, const char *zh_fmt)
{
    hostcode_finding f;
    assert_int_equal(hostcode_check(BASE, strlen(BASE), cand, strlen(cand), &f), HK_OK);
    assert_true(f.found);
    assert_string_equal(f.why, why_en);
    /* as the episode stores it (host_code_details) */
    char *stored = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_HC_AT), f.line, f.why, f.quote);
    char *plain = hk_asprintf("line %u: %s: %s", f.line, why_en, f.quote);
    assert_string_equal(stored, plain);
    char *want = hk_asprintf(zh_fmt, f.line, f.quote);
    said_zh_check(stored, want, NULL, true);
    hk_free(want);
    hk_free(plain);
    hk_free(stored);
    hostcode_finding_clear(&f);
}

/* Session 51 (helper red, issue 12): device-kind items that still made host code or host
 * symbols, each clean before the fix (tests/gpu/cheats/hc_*.cu of the same names). */
static void test_host_in_device_disguise(void **state)
{
    (void)state;
    /* a _Pragma in a namespace head: heads are no item, so check_tokens never read it */
    char *c = insert_before(BASE, "__global__",
                            "namespace tuned _Pragma(\"redefine_extname cudaEventElapsedTime "
                            "fake_elapsed\") {\n}\n");
    expect_finding(c, "namespace tuned",
                   "namespace tuned _Pragma(\"redefine_extname cudaEventElapsedTime "
                   "fake_elapsed\") {",
                   "a _Pragma the baseline does not have");
    free(c);
    /* a class defined in a typedef or an alias declaration: its static inline members */
    c = insert_before(BASE, "__global__",
                      "typedef struct boot {\n    static int start() { return 0; }\n"
                      "    static inline int booted = start();\n} boot_t;\n");
    expect_finding(c, "static inline", "static inline int booted = start();",
                   "a static inline member (a host variable that the baseline does not have)");
    free(c);
    c = insert_before(BASE, "__global__",
                      "using boot_t = struct boot {\n"
                      "    static inline int booted = start();\n};\n");
    expect_finding(c, "static inline", "static inline int booted = start();",
                   "a static inline member (a host variable that the baseline does not have)");
    free(c);
    /* __device__ in a class head is the type's (nvcc: "does not apply here"): obj is host */
    c = insert_before(BASE, "__global__",
                      "struct __device__ Boot { Boot() { } } boot;\n");
    expect_finding(c, "struct __device__", "struct __device__ Boot { Boot() { } } boot;",
                   "a host variable that the baseline does not have");
    free(c);
    /* a device word inside a template argument list is the type's: v is host */
    c = insert_before(BASE, "__global__",
                      "static std::conditional_t<true, int, int __device__> v = "
                      "setenv(\"X\", \"1\", 1);\n");
    expect_finding(c, "static std::conditional_t",
                   "static std::conditional_t<true, int, int __device__> v = "
                   "setenv(\"X\", \"1\", 1);",
                   "a host variable with a dynamic initializer (runs before main)");
    free(c);
    /* a device word after a declarator is that declarator's alone: v is host */
    c = insert_before(BASE, "__global__",
                      "int pad __device__, v = setenv(\"X\", \"1\", 1);\n");
    expect_finding(c, "int pad __device__", "int pad __device__, v = setenv(\"X\", \"1\", 1);",
                   "a host variable with a dynamic initializer (runs before main)");
    free(c);
    c = insert_before(BASE, "__global__",
                      "struct Cell { int v; } cell __device__ = {1}, boot = {init()};\n");
    expect_finding(c, "struct Cell", "struct Cell { int v; } cell __device__ = {1}, boot = {init()};",
                   "a host variable with a dynamic initializer (runs before main)");
    free(c);
    /* a const scalar whose initializer calls a lambda, or writes an object */
    c = insert_before(BASE, "__global__",
                      "static const auto boot = [] { return environ[0] = 0, 0; }();\n");
    expect_finding(c, "static const auto boot",
                   "static const auto boot = [] { return environ[0] = 0, 0; }();",
                   "a host variable with a dynamic initializer (runs before main)");
    free(c);
    c = insert_before(BASE, "__global__",
                      "static const long boot = (long)(environ[0] = (char *)\"X=1\");\n");
    expect_finding(c, "static const long boot",
                   "static const long boot = (long)(environ[0] = (char *)\"X=1\");",
                   "a host variable that the baseline does not have");
    free(c);
    /* a host destructor in a new type: a __device__ variable's host copy runs it at exit */
    const char *dtor = "a destructor compiled for the host in a new type (it runs when the "
                       "program exits for every static object of the type, the host copy of a "
                       "__device__ variable included)";
    c = insert_before(BASE, "__global__",
                      "struct Guard { int v; __host__ __device__ ~Guard() { } };\n"
                      "__device__ Guard guard;\n");
    expect_finding(c, "struct Guard", "struct Guard { int v; __host__ __device__ ~Guard() { } };",
                   dtor);
    free(c);
    c = insert_before(BASE, "__global__",
                      "struct Guard {\n    int v;\n    ~Guard();\n};\n");
    expect_finding(c, "    ~Guard();", "~Guard();", dtor);
    free(c);
    c = insert_before(BASE, "__global__",
                      "#define TILDE ~\nstruct Guard { __host__ __device__ TILDE Guard() { } };\n");
    expect_finding(c, "struct Guard", "struct Guard { __host__ __device__ TILDE Guard() { } };",
                   dtor);
    free(c);
    c = insert_before(BASE, "__global__",
                      "__host__ __device__ Guard::~Guard() { }\n");
    expect_finding(c, "__host__ __device__ Guard::~Guard", "__host__ __device__ Guard::~Guard() { }",
                   dtor);
    free(c);
    /* macros that split a declaration or hide an asm label, used outside a body */
    c = insert_before(BASE, "__global__",
                      "#define COMMA ,\nint pad __device__ COMMA v = setenv(\"X\", \"1\", 1);\n");
    expect_finding(c, "int pad __device__ COMMA", "int pad __device__ COMMA v = setenv(\"X\", \"1\", 1);",
                   "a macro that expands to declarations used outside a function body (COMMA)");
    free(c);
    c = insert_before(BASE, "__global__",
                      "#define LABEL __asm__\n"
                      "__host__ __device__ int now(int id, void *ts) LABEL(\"clock_gettime\");\n");
    expect_finding(c, "__host__ __device__ int now",
                   "__host__ __device__ int now(int id, void *ts) LABEL(\"clock_gettime\");",
                   "a macro that expands to declarations used outside a function body (LABEL)");
    free(c);
    /* a prototype with an alias attribute defines a host symbol */
    c = insert_before(BASE, "__global__",
                      "extern \"C\" int fake_clock(int id, void *ts) "
                      "__attribute__((alias(\"_Z4mineiPv\")));\n");
    expect_finding(c, "extern \"C\" int fake_clock",
                   "extern \"C\" int fake_clock(int id, void *ts) "
                   "__attribute__((alias(\"_Z4mineiPv\")));",
                   "an attribute that defines or redirects a host symbol (alias, ifunc, weakref, "
                   "symver)");
    free(c);
    c = insert_before(BASE, "__global__",
                      "[[gnu::ifunc(\"pick\")]] extern int fast_path(int v);\n");
    expect_finding(c, "[[gnu::ifunc", "[[gnu::ifunc(\"pick\")]] extern int fast_path(int v);",
                   "an attribute that defines or redirects a host symbol (alias, ifunc, weakref, "
                   "symver)");
    free(c);
    /* asm labels: a runtime call renamed, a library symbol defined under another name */
    const char *label = "an asm label outside a function body (the symbol the host code calls "
                        "or defines is not the name written)";
    c = insert_before(BASE, "__global__",
                      "extern \"C\" cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) "
                      "__asm__(\"mine\");\n");
    expect_finding(c, "extern \"C\" cudaError_t",
                   "extern \"C\" cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) "
                   "__asm__(\"mine\");",
                   label);
    free(c);
    c = insert_before(BASE, "__global__",
                      "__host__ __device__ int now(int id, void *ts) asm(\"clock_gettime\");\n");
    expect_finding(c, "__host__ __device__ int now",
                   "__host__ __device__ int now(int id, void *ts) asm(\"clock_gettime\");", label);
    free(c);
    /* __host__ __device__ functions that replace a library's or the harness's; since
     * session 52 one at global scope is found by where it is (reach), whatever its name */
    const char *interpose = "a __host__ __device__ function that replaces a library's or the "
                            "harness's (C linkage, a global operator new or delete, a member of a "
                            "library's namespace, or a name the harness calls)";
    const char *reach = "a function compiled for the host too (__host__ __device__, or a friend "
                        "without __device__) where the host code can reach it: outside a "
                        "namespace or class of the candidate's own it can replace, or win the "
                        "overload of, a function the host code calls; make it __device__ or put "
                        "it in a namespace of its own";
    c = insert_before(BASE, "__global__",
                      "__host__ __device__ void *operator new(size_t n) { return 0; }\n");
    expect_finding(c, "__host__ __device__ void *operator new",
                   "__host__ __device__ void *operator new(size_t n) { return 0; }", interpose);
    free(c);
    c = insert_before(BASE, "__global__",
                      "__host__ __device__ void operator delete[](void *p) noexcept { }\n");
    expect_finding(c, "__host__ __device__ void operator delete",
                   "__host__ __device__ void operator delete[](void *p) noexcept { }", interpose);
    free(c);
    c = insert_before(BASE, "__global__",
                      "__host__ __device__ int clock_gettime(int id, struct timespec *ts) "
                      "{ return 0; }\n");
    expect_finding(c, "__host__ __device__ int clock_gettime",
                   "__host__ __device__ int clock_gettime(int id, struct timespec *ts) "
                   "{ return 0; }",
                   reach);
    free(c);
    c = insert_before(BASE, "__global__",
                      "extern \"C\" {\n__device__ __host__ int fake_elapsed(float *ms) "
                      "{ *ms = 1; return 0; }\n}\n");
    expect_finding(c, "__device__ __host__ int fake_elapsed",
                   "__device__ __host__ int fake_elapsed(float *ms) { *ms = 1; return 0; }",
                   interpose);
    free(c);
    c = insert_before(BASE, "__global__",
                      "__host__ __device__ cudaError_t cudaEventElapsedTimeFast(float *ms) "
                      "{ return cudaSuccess; }\n");
    expect_finding(c, "__host__ __device__ cudaError_t",
                   "__host__ __device__ cudaError_t cudaEventElapsedTimeFast(float *ms) "
                   "{ return cudaSuccess; }",
                   reach);
    free(c);
    /* a member of a library's namespace, defined out of line (libstdc++.so's clock) */
    c = insert_before(BASE, "__global__",
                      "__host__ __device__ std::chrono::steady_clock::time_point "
                      "std::chrono::steady_clock::now() noexcept { return {}; }\n");
    expect_finding(c, "__host__ __device__ std::chrono",
                   "__host__ __device__ std::chrono::steady_clock::time_point "
                   "std::chrono::steady_clock::now() noexcept { return {}; }",
                   interpose);
    free(c);
    c = insert_before(BASE, "__global__",
                      "namespace std { inline namespace _V2 {\n"
                      "__host__ __device__ long fake_now(void) { return 0; }\n} }\n");
    expect_finding(c, "__host__ __device__ long fake_now",
                   "__host__ __device__ long fake_now(void) { return 0; }", interpose);
    free(c);
    /* in a class body: a friend defined there, a member's asm label */
    c = insert_before(BASE, "__global__",
                      "struct Clock {\n"
                      "    friend int clock_gettime(int id, struct timespec *ts) { return 0; }\n"
                      "};\n");
    expect_finding(c, "    friend int clock_gettime",
                   "friend int clock_gettime(int id, struct timespec *ts) { return 0; }",
                   reach);
    free(c);
    c = insert_before(BASE, "__global__",
                      "struct Clock {\n"
                      "    __host__ __device__ static int now(int id, void *ts) "
                      "asm(\"clock_gettime\");\n"
                      "};\n");
    expect_finding(c, "    __host__ __device__ static int now",
                   "__host__ __device__ static int now(int id, void *ts) asm(\"clock_gettime\");",
                   label);
    free(c);
    /* honest look-alikes stay clean: a __host__ __device__ helper and an operator on a
     * vector type in a namespace of the candidate's own (session 52: at global scope they are
     * reachable, test_host_device_reach), a class's own operator new, a typedef'd struct with
     * constexpr members, a device struct variable, asm inside a body, extern "C" kernels */
    c = insert_before(BASE, "__global__",
                      "namespace mine {\n"
                      "__host__ __device__ inline int ceil_div(int a, int b) "
                      "{ return (a + b - 1) / b; }\n"
                      "__host__ __device__ inline float2 operator+(float2 a, float2 b) "
                      "{ return make_float2(a.x + b.x, a.y + b.y); }\n"
                      "struct Pool { __host__ __device__ void *operator new(size_t n) "
                      "{ return 0; } };\n"
                      "typedef struct Tile { static constexpr int rows = 4; "
                      "static const int cols = 8; } Tile_t;\n"
                      "using Pair2 = struct { float a, b; };\n"
                      "__device__ struct Acc { float v; } acc;\n"
                      "struct Cell { float v; } __device__ cell;\n"
                      "extern \"C\" __global__ void kc(float *p) "
                      "{ asm volatile(\"membar.gl;\"); p[0] = 1; }\n"
                      "__host__ __device__ std::size_t words(std::size_t n) { return n / 4; }\n"
                      "__host__ __device__ int inv(int x = ~ceil_div(1, 1)) { return ~x; }\n"
                      "__host__ __device__ bool operator<(float2 a, float2 b) { return a.x < b.x; }\n"
                      "}\n"
                      "struct Vec { float x; __host__ __device__ float len() const; "
                      "__device__ void fence() { asm volatile(\"membar.gl;\"); }\n"
                      "    friend __host__ __device__ Vec operator*(Vec a, float s) "
                      "{ return {a.x * s}; } };\n"
                      "__host__ __device__ float Vec::len() const { return x; }\n"
                      "static const int kShift = (1 << 4) >> 1, kMask = ~0u >> kShift;\n"
                      "static const bool kBig = sizeof(float) >= 4 && kShift != 3;\n"
                      "struct DevOnly { int v; __device__ ~DevOnly() { v = 0; } };\n"
                      "struct Plain { int v; ~Plain() = default; int flip() { return ~v; }\n"
                      "    int mask = ~bits(3); static int bits(int b) { return b; } };\n"
                      "#define KARGS const float *ka, float *kb\n"
                      "__global__ void kk(KARGS) { kb[0] = ka[0]; }\n"
                      "#define MAX2(a, b) ((a) > (b) ? (a) : (b))\n"
                      "#define LESS(a, b) a < b\n"
                      "__device__ int mx(int a, int b) { return MAX2(a, b) + LESS(a, b); }\n"
                      "__device__ int mxs[MAX2(2, 3)];\n"
                      "__device__ int da, db[4], *dc;\n"
                      "float4 __device__ fa, fb;\n"
                      "int ea __device__, eb __device__ = 2;\n"
                      "struct Two { int v; } __device__ two_a, two_b;\n"
                      "extern \"C\" __constant__ float ca[2], cb;\n"
                      "__device__ __align__(16) float al_a[4], al_b[4];\n"
                      "__device__ std::pair<int, int> pr, qr;\n"
                      "template <int N> struct Box { float v[N]; };\n"
                      "__device__ Box<4> box4;\n"
                      "__device__ std::conditional_t<(2 > 1), int, float> pick;\n"
                      "template <typename T> __device__ std::enable_if_t<(sizeof(T) > 2), T> "
                      "widen(T v) { return v; }\n"
                      "namespace dev { namespace inner {\n"
                      "__device__ float lane(void) { return 0; }\n} }\n");
    expect_clean(c);
    free(c);
}

/* Session 52: a function compiled for the host must sit where the host code cannot reach it
 * -- a namespace or class of the candidate's own -- whatever its name (host_lib_names, the
 * list of C library names it replaced, missed each of the first five: CLEAN with main's
 * hostcode.c). */
static void test_host_device_reach(void **state)
{
    (void)state;
    const char *reach = "a function compiled for the host too (__host__ __device__, or a friend "
                        "without __device__) where the host code can reach it: outside a "
                        "namespace or class of the candidate's own it can replace, or win the "
                        "overload of, a function the host code calls; make it __device__ or put "
                        "it in a namespace of its own";
    const char *using_own = "a using-directive or using-declaration that brings the candidate's "
                            "own namespace into a scope the host code reads (its functions would "
                            "take part in the host code's calls)";
    /* a C library name spelled through a macro: the item's name token is NOW */
    char *c = insert_before(BASE, "__global__",
                            "#define NOW clock_gettime\n"
                            "__host__ __device__ int NOW(int id, struct timespec *ts) "
                            "{ return 0; }\n");
    expect_finding(c, "__host__ __device__ int NOW",
                   "__host__ __device__ int NOW(int id, struct timespec *ts) { return 0; }", reach);
    free(c);
    /* a libc function the list did not have (rand: the harness's seeds), and the
     * baseline's own host launcher, dropped and defined again as host-device code */
    c = insert_before(BASE, "__global__", "__host__ __device__ int rand(void) { return 4; }\n");
    expect_finding(c, "__host__ __device__ int rand", "__host__ __device__ int rand(void) { return 4; }",
                   reach);
    free(c);
    c = replace(BASE, "void launch(const float *x, float *y, float a, int n)\n{",
                "__host__ __device__ void launch(const float *x, float *y, float a, int n)\n{");
    expect_finding(c, "__host__ __device__ void launch",
                   "__host__ __device__ void launch(const float *x, float *y, float a, int n)", reach);
    free(c);
    /* an overload the host code's call prefers (printf(const char *, float) over libc's ...) */
    c = insert_before(BASE, "__global__",
                      "template <typename T> __host__ __device__ int fake_fmt(const char *f, T v) "
                      "{ return 0; }\n");
    expect_finding(c, "template <typename T>",
                   "template <typename T> __host__ __device__ int fake_fmt(const char *f, T v) "
                   "{ return 0; }",
                   reach);
    free(c);
    /* a friend without a parameter of its class: <ctime>'s or <cstdlib>'s declaration names it */
    c = insert_before(BASE, "__global__",
                      "struct Seed {\n    friend int rand(void) { return 4; }\n};\n");
    expect_finding(c, "    friend int rand", "friend int rand(void) { return 4; }", reach);
    free(c);
    /* scopes the host code's lookup enters: an inline or unnamed namespace, a namespace the
     * baseline names (scale is its kernel's name) */
    c = insert_before(BASE, "__global__",
                      "inline namespace fast {\n__host__ __device__ int rand(void) { return 4; }\n}\n");
    expect_finding(c, "__host__ __device__ int rand", "__host__ __device__ int rand(void) { return 4; }",
                   reach);
    free(c);
    c = insert_before(BASE, "__global__",
                      "namespace {\n__host__ __device__ int rand(void) { return 4; }\n}\n");
    expect_finding(c, "__host__ __device__ int rand", "__host__ __device__ int rand(void) { return 4; }",
                   reach);
    free(c);
    c = insert_before(BASE, "__global__",
                      "namespace banner {\n__host__ __device__ int rand(void) { return 4; }\n}\n");
    expect_finding(c, "__host__ __device__ int rand", "__host__ __device__ int rand(void) { return 4; }",
                   reach);
    free(c);
    /* the candidate's own namespace brought into the host code's lookup */
    c = insert_before(BASE, "__global__",
                      "namespace mine {\n__host__ __device__ int rand(void) { return 4; }\n}\n"
                      "using namespace mine;\n");
    expect_finding(c, "using namespace mine;", "using namespace mine;", using_own);
    free(c);
    c = insert_before(BASE, "__global__",
                      "namespace mine {\n__host__ __device__ int rand(void) { return 4; }\n}\n"
                      "using mine::rand;\n");
    expect_finding(c, "using mine::rand;", "using mine::rand;", using_own);
    free(c);
    /* clean: the candidate's own namespace (nested too), class members defined out of line,
     * operators and hidden friends of its own classes, device-only friends, a using inside its
     * own namespace, type aliases */
    c = insert_before(BASE, "__global__",
                      "namespace mine { namespace detail {\n"
                      "__host__ __device__ int rand(void) { return 4; }\n} }\n"
                      "namespace mine { using namespace detail; using detail::rand; }\n"
                      "namespace mine::v2 { __host__ __device__ int clock_gettime(int, void *) "
                      "{ return 0; } }\n"
                      "struct __align__(8) V2 { float x, y; __host__ __device__ float dot(V2 o) const;\n"
                      "    friend __host__ __device__ V2 operator-(V2 a) { return {-a.x, -a.y}; }\n"
                      "    friend __device__ int lane(void) { return 0; } };\n"
                      "__host__ __device__ float V2::dot(V2 o) const { return x * o.x + y * o.y; }\n"
                      "__host__ __device__ V2 operator+(V2 a, V2 b) { return {a.x + b.x, a.y + b.y}; }\n"
                      "template <typename T> __host__ __device__ T twice(V2 v, T s) { return s; }\n"
                      "using V2_t = V2;\n"
                      "__device__ int rand_dev(void) { return 4; }\n");
    expect_finding(c, "template <typename T> __host__ __device__ T twice",
                   "template <typename T> __host__ __device__ T twice(V2 v, T s) { return s; }", reach);
    free(c);
    c = insert_before(BASE, "__global__",
                      "namespace mine { namespace detail {\n"
                      "__host__ __device__ int rand(void) { return 4; }\n} }\n"
                      "namespace mine { using namespace detail; using detail::rand; }\n"
                      "namespace mine::v2 { __host__ __device__ int clock_gettime(int, void *) "
                      "{ return 0; } }\n"
                      "struct __align__(8) V2 { float x, y; __host__ __device__ float dot(V2 o) const;\n"
                      "    friend __host__ __device__ V2 operator-(V2 a) { return {-a.x, -a.y}; }\n"
                      "    friend __device__ int lane(void) { return 0; } };\n"
                      "__host__ __device__ float V2::dot(V2 o) const { return x * o.x + y * o.y; }\n"
                      "__host__ __device__ V2 operator+(V2 a, V2 b) { return {a.x + b.x, a.y + b.y}; }\n"
                      "using V2_t = V2;\n"
                      "__device__ int rand_dev(void) { return 4; }\n");
    expect_clean(c);
    free(c);
    /* the DCU's inline-asm markers in an asm string, whole or split across literals (a
     * forged end let `.set HX, 29` escape the reader's inline-asm span: hc_asm_marker.cu) */
    const char *marker = "a string or word holding the compiler's inline-asm marker (#ASMSTART, "
                         "#ASMEND): the referee reads a DCU's assembly by them";
    c = insert_before(BASE, "__global__",
                      "__device__ unsigned hx(void) { unsigned v;\n"
                      "    asm volatile(\";;#ASMEND\\n.set HX, 29\" \"\\n;;#ASMSTART\" : \"=s\"(v));\n"
                      "    return v; }\n");
    expect_finding(c, "    asm volatile", "asm volatile(\";;#ASMEND\\n.set HX, 29\" \"\\n;;#ASMSTART\" : \"=s\"(v));",
                   marker);
    free(c);
    c = insert_before(BASE, "__global__",
                      "__device__ void hy(void) { asm volatile(\";;#ASM\" \"end\"); }\n");
    expect_finding(c, "__device__ void hy", "__device__ void hy(void) { asm volatile(\";;#ASM\" \"end\"); }",
                   marker);
    free(c);
    /* C linkage ignores namespaces: still the library's symbol */
    c = insert_before(BASE, "__global__",
                      "namespace mine {\nextern \"C\" __host__ __device__ int rand(void) "
                      "{ return 4; }\n}\n");
    expect_finding(c, "extern \"C\" __host__", "extern \"C\" __host__ __device__ int rand(void) { return 4; }",
                   "a __host__ __device__ function that replaces a library's or the harness's (C "
                   "linkage, a global operator new or delete, a member of a library's namespace, or "
                   "a name the harness calls)");
    free(c);
}

/* Session 52: a type the kept host code uses, defined differently by the candidate. */
static const char TYPED_BASE[] =
    "#include <cuda_runtime.h>\n"
    "struct Params { float a; int n; };\n"
    "typedef float real_t;\n"
    "enum Mode { MODE_FAST = 1, MODE_EXACT = 2 };\n"
    "struct Tile { float v[32]; };\n"
    "__global__ void scale(Params p, const real_t *x, real_t *y)\n"
    "{\n"
    "    __shared__ Tile t;\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    t.v[threadIdx.x % 32] = x[i];\n"
    "    if (i < p.n)\n"
    "        y[i] = p.a * t.v[threadIdx.x % 32];\n"
    "}\n"
    "void launch(const real_t *x, real_t *y, float a, int n)\n"
    "{\n"
    "    Params p = {a, n};\n"
    "    Mode m = MODE_FAST;\n"
    "    scale<<<(n + 255) / 256, 256>>>(p, x, y);\n"
    "    (void)m;\n"
    "}\n";

static void typed_finding(const char *old, const char *repl, const char *line, const char *name)
{
    char *c = replace(TYPED_BASE, old, repl);
    hostcode_finding f;
    assert_int_equal(hostcode_check(TYPED_BASE, strlen(TYPED_BASE), c, strlen(c), &f), HK_OK);
    if (!f.found)
        fail_msg("no finding for: %s", repl);
    char why[512];
    snprintf(why, sizeof why,
             "a type the host code uses, defined differently from the baseline's (its size, "
             "layout or values would differ between the host code and the device code) (%s)",
             name);
    assert_string_equal(f.why, why);
    assert_int_equal(f.line, line_of(c, line));
    hostcode_finding_clear(&f);
    free(c);
}

static void typed_clean(const char *old, const char *repl)
{
    char *c = replace(TYPED_BASE, old, repl);
    hostcode_finding f;
    assert_int_equal(hostcode_check(TYPED_BASE, strlen(TYPED_BASE), c, strlen(c), &f), HK_OK);
    if (f.found)
        fail_msg("unexpected finding at line %u: %s -- %s", f.line, f.why, f.quote);
    free(c);
}

static void test_host_types(void **state)
{
    (void)state;
    /* each was CLEAN with main's hostcode.c: a type definition was allowed whatever it was */
    typed_finding("struct Params { float a; int n; };", "struct Params { int n; float a; };",
                  "struct Params", "Params"); /* members reordered: launch's {a, n} */
    typed_finding("struct Params { float a; int n; };",
                  "struct __align__(16) Params { float a; int n; };", "struct __align__", "Params");
    typed_finding("typedef float real_t;", "typedef double real_t;", "typedef double", "real_t");
    typed_finding("typedef float real_t;", "using real_t = __half;", "using real_t", "real_t");
    typed_finding("enum Mode { MODE_FAST = 1, MODE_EXACT = 2 };",
                  "enum Mode { MODE_FAST = 2, MODE_EXACT = 1 };", "enum Mode", "Mode");
    typed_finding("enum Mode { MODE_FAST = 1, MODE_EXACT = 2 };",
                  "enum Mode2 { MODE_FAST = 2, MODE_EXACT = 1 };", "enum Mode2", "MODE_FAST");
    typed_finding("struct Params { float a; int n; };",
                  "template <typename T> struct Box { T v; };\n"
                  "template <> struct Box<int> { long v; };\n"
                  "typedef struct { int n; float a; } Params;", "typedef struct", "Params");
    /* clean: the same types reformatted, a device-only type changed, new types, a forward
     * declaration and an elaborated use of a host type, the kernel changed */
    typed_clean("struct Params { float a; int n; };", "struct Params {\n  float a;\n  int n;\n};");
    typed_clean("struct Tile { float v[32]; };", "struct Tile { float v[33]; };");
    typed_clean("struct Tile { float v[32]; };",
                "struct Tile { float v[32]; };\nstruct Acc { double s; };\n"
                "enum class Lane : int { lo, hi };\nusing acc_t = double;\n"
                "struct Params;\n__device__ struct Params *last_params;\n");
    typed_clean("        y[i] = p.a * t.v[threadIdx.x % 32];", "        y[i] = __fmul_rn(p.a, x[i]);");
}

static void test_said_zh(void **state)
{
    (void)state;
    long live = hk_alloc_live();
    char *c = insert_before(BASE, "int main(void)", "static int extra(void) { return 1; }\n\n");
    said_zh_of(c, "a host function that the baseline does not have",
               "第 %u 行：基线没有的主机端函数：%s");
    free(c);
    c = insert_before(BASE, "__global__", "#define cudaEventRecord(e) 0\n");
    said_zh_of(c, "#define of a name the harness uses (cudaEventRecord)",
               "第 %u 行：#define 了测试框架使用的名字（cudaEventRecord）：%s");
    free(c);
    c = insert_before(BASE, "__global__", "#line 40 \"kernel.cu\"\n");
    said_zh_of(c, "#line changes the file name and lines the compiler reports",
               "第 %u 行：#line 会改变编译器报告的文件名和行号：%s");
    free(c);
    c = insert_before(BASE, "void launch", "#if 1\n");
    said_zh_of(c, "an #if without #endif", "第 %u 行：没有 #endif 的 #if：%s");
    free(c);
    c = insert_before(BASE, "__global__", "#define PASTE(a, b) a##b\n");
    said_zh_of(c, "a macro that stringifies or pastes tokens (the scan cannot see what it makes)",
               "第 %u 行：把记号字符串化或拼接的宏（扫描看不到它生成什么）：%s");
    free(c);
    /* session 52's findings */
    c = insert_before(BASE, "__global__", "__host__ __device__ int rand(void) { return 4; }\n");
    said_zh_of(c,
               "a function compiled for the host too (__host__ __device__, or a friend without "
               "__device__) where the host code can reach it: outside a namespace or class of the "
               "candidate's own it can replace, or win the overload of, a function the host code "
               "calls; make it __device__ or put it in a namespace of its own",
               "第 %u 行：同时为主机端编译的函数（__host__ __device__，或未标 __device__ 的友元）"
               "位于主机代码可触及之处：不在候选代码自有的命名空间或类中时，它可能替换主机代码调用"
               "的函数，或在重载解析中胜出；请改为 __device__，或放入自有的命名空间：%s");
    free(c);
    c = insert_before(BASE, "__global__", "namespace mine { }\nusing namespace mine;\n");
    said_zh_of(c,
               "a using-directive or using-declaration that brings the candidate's own namespace "
               "into a scope the host code reads (its functions would take part in the host "
               "code's calls)",
               "第 %u 行：把候选代码自有命名空间引入主机代码所在作用域的 using 指令或 using 声明"
               "（其中的函数会参与主机代码的调用解析）：%s");
    free(c);
    {
        char *t = replace(TYPED_BASE, "typedef float real_t;", "typedef double real_t;");
        hostcode_finding f;
        assert_int_equal(hostcode_check(TYPED_BASE, strlen(TYPED_BASE), t, strlen(t), &f), HK_OK);
        assert_true(f.found);
        char *stored = hk_asprintf(hk_tr_in(HK_LANG_EN, HK_MSG_HC_AT), f.line, f.why, f.quote);
        char *want = hk_asprintf("第 %u 行：与基线定义不同的、主机端代码使用的类型（主机端与设备端"
                                 "代码对其大小、布局或取值的理解将不一致）（real_t）：%s",
                                 f.line, f.quote);
        said_zh_check(stored, want, NULL, true);
        hk_free(want);
        hk_free(stored);
        hostcode_finding_clear(&f);
        free(t);
    }
    assert_int_equal(hk_alloc_live(), live);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_and_kernel_changes),
        cmocka_unit_test(test_device_additions),
        cmocka_unit_test(test_host_functions),
        cmocka_unit_test(test_static_constructors),
        cmocka_unit_test(test_harness_defines),
        cmocka_unit_test(test_hip_candidates),
        cmocka_unit_test(test_includes_and_lines),
        cmocka_unit_test(test_incbin),
        cmocka_unit_test(test_host_variables),
        cmocka_unit_test(test_strings_comments_do_not_confuse),
        cmocka_unit_test(test_namespaces),
        cmocka_unit_test(test_conditionals_and_macros),
        cmocka_unit_test(test_trigraphs_nul_splices),
        cmocka_unit_test(test_line_ends_and_bom),
        cmocka_unit_test(test_quote_cap_and_args),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_host_in_device_disguise),
        cmocka_unit_test(test_host_device_reach),
        cmocka_unit_test(test_host_types),
        cmocka_unit_test(test_said_zh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
