/* Clock reads in a kernel image's PTX (kimage_ptx_clocks) and the referee's rule on them
 * (measure_clock_check): a candidate may read no clock, timer or performance counter that
 * the baseline does not. The PTX lines are as nvcc 13 writes them (clock64(), inline asm
 * reading %globaltimer); comments and strings that merely name a register, and registers
 * whose names only start like one, are not reads; a register split across the file
 * reader's 64 KiB chunks is found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/kimage.h"
#include "measure/harness.h"
#include "measure/measure.h"
#include "spec/spec.h"

static char dir[] = "/tmp/hk-clock-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char honest[] =
    ".version 9.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    "\t// .globl\tvector_add\n"
    ".visible .entry vector_add(\n"
    "\t.param .u64 vector_add_param_0\n"
    ")\n"
    "{\n"
    "\t.reg .b32 \t%r<5>;\n"
    "\t.reg .b64 \t%rd<3>;\n"
    "\tmov.u32 \t%r1, %ctaid.x;\n"
    "\tmov.u32 \t%r2, %ntid.x;\n"
    "\tmov.u32 \t%r3, %tid.x;\n"
    "\tret;\n"
    "}\n";

static void scan(const char *text, kimage_clocks *c)
{
    kimage_ptx_clocks(text, strlen(text), c);
}

static void test_honest_ptx(void **state)
{
    (void)state;
    kimage_clocks c;
    scan(honest, &c);
    assert_int_equal(c.reads, 0);
    /* named in comments and strings only, or by registers that only start like one */
    scan("// mov.u64 %rd1, %globaltimer;\n"
         "/* mov.u32 %r1, %clock;\n   %pm0 */\n"
         ".file 1 \"%clock64.cu\"\n"
         "\t.reg .b32 %clockwork, %pm8, %pm0_32, %globaltimer_mid, %grid, %gridid2;\n"
         "\tmov.u32 %r1, %clockwork;\n\tmov.u32 %r2, %gridid2;\n",
         &c);
    assert_int_equal(c.reads, 0);
}

static void test_reads(void **state)
{
    (void)state;
    kimage_clocks c;
    scan("\tmov.u32 \t%r1, %tid.x;\n"
         "\tmov.u64 \t%rd1, %clock64;\n"
         "\t// begin inline asm\n"
         "\tmov.u64 %rd2, %globaltimer;\n"
         "\t// end inline asm\n"
         "\tmov.u64 %rd3, %clock64;\n",
         &c);
    assert_int_equal(c.reads, KIMAGE_READS_CLOCK | KIMAGE_READS_GLOBALTIMER);
    assert_int_equal(c.line[0], 2); /* the first of each kind */
    assert_string_equal(c.what[0], "%clock64");
    assert_string_equal(c.text[0], "mov.u64 %rd1, %clock64;"); /* tabs read as one space */
    assert_int_equal(c.line[1], 4);
    assert_string_equal(c.what[1], "%globaltimer");
    assert_string_equal(c.text[1], "mov.u64 %rd2, %globaltimer;");
    static const char *const one[][2] = {
        {"mov.u32 %r1, %clock;", "%clock"},       {"mov.u32 %r1,%clock_hi;", "%clock_hi"},
        {"mov.u32 %r1, %globaltimer_lo;", "%globaltimer_lo"},
        {"mov.u32 %r1, %globaltimer_hi;", "%globaltimer_hi"},
        {"mov.u32 %r1, %pm0;", "%pm0"},           {"mov.u64 %rd1, %pm7_64;", "%pm7_64"},
        {"add.u64 %rd1, %rd1, %clock64; // x", "%clock64"},
        {"mov.u64 %rd1, %gridid;", "%gridid"},
    };
    static const unsigned bit[] = {KIMAGE_READS_CLOCK,       KIMAGE_READS_CLOCK,
                                   KIMAGE_READS_GLOBALTIMER, KIMAGE_READS_GLOBALTIMER,
                                   KIMAGE_READS_PMCOUNTER,   KIMAGE_READS_PMCOUNTER,
                                   KIMAGE_READS_CLOCK,       KIMAGE_READS_GRIDID};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        scan(one[i][0], &c);
        assert_int_equal(c.reads, bit[i]);
        assert_string_equal(c.what[kimage_clocks_first(bit[i])], one[i][1]);
    }
    /* a string ends at the next quote, as ptxas reads it: a backslash escapes nothing
     * (session 51: the scan took `\"` for an escaped quote and the mov for string) */
    scan("\t.pragma \"nounroll\\\"; mov.u64 %rd3, %globaltimer; //\";\n", &c);
    assert_int_equal(c.reads, KIMAGE_READS_GLOBALTIMER);
    assert_string_equal(c.text[1], ".pragma \"nounroll\\\"; mov.u64 %rd3, %globaltimer; //\";");
    /* a register named inside a string that a backslash ends stays unread */
    scan("\t.pragma \"%globaltimer \\\";\n", &c);
    assert_int_equal(c.reads, 0);
    /* a register right after a block comment, on a CR LF line */
    scan("mov.u64 %rd1, /* t */%globaltimer;\r\n", &c);
    assert_int_equal(c.reads, KIMAGE_READS_GLOBALTIMER);
    assert_string_equal(c.text[1], "mov.u64 %rd1, /* t */%globaltimer;");
}

static void test_directive(void **state)
{
    (void)state;
    kimage_clocks c;
    /* ptxas's preprocessor could paste a register's name together: a '#' line is its own
     * finding (nvcc writes none); a '#' elsewhere on a line is not a directive */
    scan("\t// begin inline asm\n  #define T(a, b) a##b\n\tmov.u64 %rd1, T(%global, timer);\n", &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    assert_int_equal(c.line[3], 2);
    assert_string_equal(c.text[3], "#define T(a, b) a##b");
    scan("\tmov.u32 %r1, 1; # not at the start\n", &c);
    assert_int_equal(c.reads, 0);
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

static void test_file_chunks(void **state)
{
    (void)state;
    /* the register straddles the reader's 64 KiB chunk boundary, after ~1 MB of an
     * initialised array's PTX */
    size_t pad = 65536 - 20, total = pad + (1u << 20) + 64;
    char *t = malloc(total);
    assert_non_null(t);
    memset(t, ' ', pad);
    memcpy(t + pad, "mov.u64 %rd1, %globaltimer;\n", 28);
    size_t at = pad + 28;
    while (at + 3 < total - 1) {
        memcpy(t + at, "0,\n", 3);
        at += 3;
    }
    t[at] = '\0';
    char path[128];
    snprintf(path, sizeof path, "%s/big.ptx", dir);
    write_text(path, t, at);
    kimage_clocks c;
    assert_int_equal(kimage_ptx_clocks_file(path, &c), HK_OK);
    assert_int_equal(c.reads, KIMAGE_READS_GLOBALTIMER);
    assert_int_equal(c.line[1], 1);
    free(t);
    snprintf(path, sizeof path, "%s/none.ptx", dir);
    assert_int_equal(kimage_ptx_clocks_file(path, &c), HK_ENOENT);
}

/* MODULE.ptx of image name in dir, holding text. *module: that image's path (the image
 * itself need not exist: only its PTX is read). */
static void image(const char *name, const char *text, char *module, size_t n)
{
    char path[256];
    snprintf(module, n, "%s/%s.cubin", dir, name);
    snprintf(path, sizeof path, "%s.ptx", module);
    write_text(path, text, strlen(text));
}

static void test_clock_check(void **state)
{
    (void)state;
    char base[256], cand[256], same[256], pm[256];
    image("base", honest, base, sizeof base);
    image("cand", "mov.u32 %r1, %tid.x;\n\tmov.u64 \t%rd1, %clock64;\n", cand, sizeof cand);
    image("same", "mov.u64 %rd1, %clock64;\n", same, sizeof same);
    image("pm", "mov.u64 %rd1, %clock64;\nmov.u32 %r2, %pm3;\n", pm, sizeof pm);
    const char *result = NULL;
    char *why = NULL;
    /* honest against honest: pass, nothing to say */
    assert_int_equal(measure_clock_check(base, base, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_null(why);
    /* a clock the baseline does not read: fail, naming the register and the line */
    assert_int_equal(measure_clock_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(strstr(why, "reads a clock (%clock64, PTX line 2: mov.u64 %rd1, %clock64;)"));
    assert_non_null(strstr(why, "which the baseline's does not"));
    hk_free(why);
    /* the baseline reads the clock too: the candidate may; a kind it does not read is new */
    assert_int_equal(measure_clock_check(same, cand, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_null(why);
    assert_int_equal(measure_clock_check(same, pm, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(strstr(why, "a performance counter (%pm3, PTX line 2"));
    hk_free(why);
    /* the launch number: a process's first launch (checked, sanitized) told from the timed
     * ones without any state of the kernel's own */
    char grid[256];
    image("grid", "mov.u64 %rd1, %clock64;\n\tmov.u64 \t%rd4, %gridid;\n", grid, sizeof grid);
    assert_int_equal(measure_clock_check(same, grid, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(strstr(why, "reads the launch number (%gridid, PTX line 2: mov.u64 %rd4, %gridid;)"));
    hk_free(why);
    /* no baseline image (or no PTX for it): the baseline reads nothing */
    assert_int_equal(measure_clock_check(NULL, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    hk_free(why);
    char nopx[256];
    snprintf(nopx, sizeof nopx, "%s/gone.cubin", dir);
    assert_int_equal(measure_clock_check(nopx, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    hk_free(why);
    /* not judged, with the reason: no PTX beside the candidate's image, a DCU code object,
     * a program instead of an image */
    assert_int_equal(measure_clock_check(base, nopx, &result, &why), HK_OK);
    assert_string_equal(result, "not_run");
    assert_non_null(strstr(why, "no PTX beside the image"));
    hk_free(why);
    assert_int_equal(measure_clock_check(base, "/x/kernel.co", &result, &why), HK_OK);
    assert_string_equal(result, "not_run");
    assert_non_null(strstr(why, "DCU code object"));
    hk_free(why);
    assert_int_equal(measure_clock_check(base, NULL, &result, &why), HK_OK);
    assert_string_equal(result, "not_run");
    hk_free(why);
    assert_string_equal(measure_reason_name(MEASURE_READS_CLOCK), "reads_clock");
}

/* ---- local memory the launcher's scrub does not cover (KIMAGE_LOCAL_BITS) ---- */

/* A function with a local array the compiler addresses itself, as nvcc 13 writes it. */
static const char local_frame[] =
    ".visible .entry k(\n"
    "\t.param .u64 k_param_0\n"
    ")\n"
    "{\n"
    "\t.local .align 16 .b8 \t__local_depot0[256];\n"
    "\t.reg .b64 \t%SP;\n"
    "\t.reg .b64 \t%SPL;\n"
    "\tmov.u64 \t%SPL, __local_depot0;\n"
    "\tcvta.local.u64 \t%SP, %SPL;\n"
    "\tadd.u64 \t%rd1, %SPL, 0;\n"
    "\tst.local.u32 \t[%rd1], %r1;\n"
    "\tld.local.u32 \t%r2, [%rd1+4];\n"
    "\tret;\n"
    "}\n";

static void test_local_asm(void **state)
{
    (void)state;
    kimage_clocks c;
    /* the compiler's own local memory, with no inline asm: nothing */
    scan(local_frame, &c);
    assert_int_equal(c.reads, 0);
    /* inline asm reading local memory at an address of its own */
    scan("{\n"
         "\t// begin inline asm\n"
         "ld.local.u32 %r8, [512];\n"
         "\t// end inline asm\n"
         "}\n",
         &c);
    assert_int_equal(c.reads, KIMAGE_LOCAL_ASM);
    int k = kimage_clocks_first(KIMAGE_LOCAL_ASM);
    assert_int_equal(c.line[k], 3);
    assert_string_equal(c.what[k], ".local");
    assert_string_equal(c.text[k], "ld.local.u32 %r8, [512];");
    /* each other way of naming it inside the asm */
    static const char *const one[][2] = {
        {"st.local.u32 [%rd1+600], %r1;", ".local"},
        {"cvta.to.local.u64 %rd2, %rd1;", ".local"},
        {"cvta.local.u64 %rd2, %rd1;", ".local"},
        {"atom.local.add.u32 %r1, [8], 1;", ".local"},
        {".local .b32 mine[4];", ".local"},
        {"add.u64 %rd2, %SP, 4096;", "%SP"},
        {"mov.u64 %rd2, %SPL;", "%SPL"},
        {"mov.u64 %rd2, __local_depot0;", "__local_depot"},
    };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "\t// begin inline asm\n%s\n\t// end inline asm\n", one[i][0]);
        scan(text, &c);
        assert_int_equal(c.reads, KIMAGE_LOCAL_ASM);
        assert_string_equal(c.what[k], one[i][1]);
        assert_int_equal(c.line[k], 2);
    }
    /* lookalikes inside the asm: a comment, a string, a register or a name that only starts
     * like one, another state space */
    scan("\t// begin inline asm\n"
         "// ld.local.u32 %r1, [512];\n"
         "/* st.local.u32 [0], %r1; %SP */\n"
         ".pragma \"ld.local %SPL __local_depot\";\n"
         "mov.u64 %rd1, %SPX;\n"
         "mov.u64 %rd1, %SP_2;\n"
         "ld.global.local_like.u32 %r1, [%rd1];\n"
         "mov.u64 %rd1, my__local_depot;\n"
         "ld.shared.u32 %r1, [%rd1];\n"
         "\t// end inline asm\n",
         &c);
    assert_int_equal(c.reads, 0);
    /* compiler code before the first asm and after the last one is outside the span */
    char text[1024];
    snprintf(text, sizeof text, "%s\t// begin inline asm\nmov.u32 %%r9, %%laneid;\n\t// end inline asm\n%s",
             local_frame, local_frame);
    scan(text, &c);
    assert_int_equal(c.reads, 0);
    /* asm text that forges nvcc's marks around its own lines is still inside the span: the
     * span runs from the first begin line to the last end line */
    scan("\t// begin inline asm\n"
         "\t// end inline asm\n"
         "ld.local.u32 %r8, [512];\n"
         "\t// begin inline asm\n"
         "\t// end inline asm\n",
         &c);
    assert_int_equal(c.reads, KIMAGE_LOCAL_ASM);
    assert_int_equal(c.line[k], 3);
    /* nor can a block comment opened in the asm hide the last end line */
    scan("\t// begin inline asm\n"
         "ld.local.u32 %r8, [512]; /*\n"
         "\t// end inline asm\n"
         "*/\n",
         &c);
    assert_int_equal(c.reads, KIMAGE_LOCAL_ASM);
    /* so compiler code between two asm statements counts too (the price of the above) */
    snprintf(text, sizeof text, "\t// begin inline asm\n\t// end inline asm\n%s\t// begin inline asm\n\t// end inline asm\n",
             local_frame);
    scan(text, &c);
    assert_int_equal(c.reads, KIMAGE_LOCAL_ASM);
    /* a begin line without an end line: nothing is inside a span */
    scan("\t// begin inline asm\nld.local.u32 %r8, [512];\n", &c);
    assert_int_equal(c.reads, 0);
}

static void test_dynamic_stack(void **state)
{
    (void)state;
    kimage_clocks c;
    int k = kimage_clocks_first(KIMAGE_DYNAMIC_STACK);
    scan("\tadd.s64 \t%rd4, %rd3, 4;\n"
         "\talloca.u64 \t%rd5, %rd4, 16;\n"
         "\tcvta.local.u64 \t%rd5, %rd5;\n",
         &c);
    assert_int_equal(c.reads, KIMAGE_DYNAMIC_STACK); /* the cvta is outside any asm */
    assert_int_equal(c.line[k], 2);
    assert_string_equal(c.what[k], "alloca");
    assert_string_equal(c.text[k], "alloca.u64 %rd5, %rd4, 16;");
    scan("\tstacksave.u64 \t%rd1;\n", &c);
    assert_int_equal(c.reads, KIMAGE_DYNAMIC_STACK);
    assert_string_equal(c.what[k], "stacksave");
    scan("\tstackrestore.u64 \t%rd1;\n", &c);
    assert_int_equal(c.reads, KIMAGE_DYNAMIC_STACK);
    assert_string_equal(c.what[k], "stackrestore");
    /* named in a comment, a string, as part of a name or after a '.' */
    scan("// alloca.u64 %rd5, %rd4, 16;\n"
         ".file 1 \"alloca.cu\"\n"
         "\tmov.u64 \t%rd1, _Z6allocai;\n"
         "\tmov.u64 \t%rd1, stacksave_x;\n"
         "\tld.param.alloca \t%rd1, [p];\n",
         &c);
    assert_int_equal(c.reads, 0);
}

/* A call as nvcc writes it: the callee on the line after `call.uni (retval0),`. */
#define CALL(name)                                                                        \
    "\t{ // callseq 0, 0\n\t.param .b32 param0;\n\tst.param.b32 \t[param0+0], %r7;\n"      \
    "\t.param .b32 retval0;\n\tcall.uni (retval0), \n\t" name ", \n\t(\n\tparam0\n\t);\n" \
    "\tld.param.b32 \t%r13, [retval0+0];\n\t} // callseq 0\n"
#define FUNC(name, body)                                                                  \
    ".func  (.param .b32 func_retval0) " name "(\n\t.param .b32 " name "_param_0\n)\n{\n" \
    "\t.reg .b32 \t%r<14>;\n" body "\tret;\n}\n"

static void test_calls(void **state)
{
    (void)state;
    kimage_clocks c;
    int k = kimage_clocks_first(KIMAGE_RECURSION);
    /* calls without a cycle: to functions defined here (declared first, as nvcc does) and to
     * one that is not (vprintf) */
    scan(".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0\n);\n"
         ".func  (.param .b32 func_retval0) _Z1gi\n(\n\t.param .b32 _Z1gi_param_0\n)\n;\n"
         FUNC("_Z1gi", CALL("vprintf"))
         FUNC("_Z1hi", CALL("_Z1gi") CALL("_Z1gi"))
         ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n" CALL("_Z1hi") CALL("_Z1gi") "\tret;\n}\n",
         &c);
    assert_int_equal(c.reads, 0);
    /* a function that calls itself: the line of the call, the callee named */
    scan(FUNC("_Z3recii", "\t@%p1 bra \t$L__BB0_2;\n" CALL("_Z3recii") "$L__BB0_2:\n")
         ".visible .entry r(\n\t.param .u64 r_param_0\n)\n{\n" CALL("_Z3recii") "\tret;\n}\n",
         &c);
    assert_int_equal(c.reads, KIMAGE_RECURSION);
    assert_int_equal(c.line[k], 11);
    assert_string_equal(c.what[k], "call");
    assert_string_equal(c.text[k], "call _Z3recii");
    /* two functions calling each other, defined in either order */
    scan(".func  (.param .b32 func_retval0) _Z2a1i\n(\n\t.param .b32 _Z2a1i_param_0\n)\n;\n"
         FUNC("_Z2b1i", CALL("_Z2a1i")) FUNC("_Z2a1i", CALL("_Z2b1i"))
         ".visible .entry m(\n\t.param .u64 m_param_0\n)\n{\n" CALL("_Z2a1i") "\tret;\n}\n",
         &c);
    assert_int_equal(c.reads, KIMAGE_RECURSION);
    assert_string_equal(c.text[k], "call _Z2b1i");
    /* a call through a register (a function pointer) */
    scan(".visible .entry ind(\n\t.param .u64 p\n)\n{\n"
         "\tselp.b64 \t%rd5, %rd4, %rd3, %p1;\n"
         "\t{ // callseq 2, 0\n"
         "\tprototype_2 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
         "\tcall (retval0), \n\t%rd5, \n\t(\n\tparam0\n\t)\n\t, prototype_2;\n"
         "\t} // callseq 2\n\tret;\n}\n",
         &c);
    assert_int_equal(c.reads, KIMAGE_RECURSION);
    assert_int_equal(c.line[k], 8);
    assert_string_equal(c.text[k], "call %rd5");
    /* nvcc's long mangled names, told apart past their first 48 bytes, after a braced
     * initializer at file scope and an assert's extern declaration (as in real PTX) */
#define LONG1 "_Z25layernorm_forward_kernel6PfS_S_PKfS1_S1_ii_and_more_of_it_1"
#define LONG2 "_Z25layernorm_forward_kernel6PfS_S_PKfS1_S1_ii_and_more_of_it_2"
    scan(".extern .func __assertfail\n(\n\t.param .b64 __assertfail_param_0\n)\n;\n"
         ".global .align 1 .b8 $str[3] = {98, 108, 0};\n"
         FUNC(LONG1, CALL("__assertfail")) FUNC(LONG2, CALL(LONG1))
         ".visible .entry " LONG1 "_k(\n\t.param .u64 p\n)\n{\n" CALL(LONG2) "\tret;\n}\n",
         &c);
    assert_int_equal(c.reads, 0);
    scan(FUNC(LONG1, CALL(LONG2)) FUNC(LONG2, CALL(LONG1)), &c);
    assert_int_equal(c.reads, KIMAGE_RECURSION);
    assert_string_equal(c.text[k], "call _Z25layernorm_forward_kernel6PfS_S_PKfS1_S1_ii_"); /* cut */
    /* `call` in a comment, a string, or as part of a name is no call */
    scan(FUNC("_Z1fi", "\t// call.uni (retval0), _Z1fi, (param0);\n"
                       "\t.pragma \"call _Z1fi\";\n\tmov.u32 \t%r1, call_count;\n"),
         &c);
    assert_int_equal(c.reads, 0);
}

static void test_large_frame(void **state)
{
    (void)state;
    kimage_clocks c;
    int k = kimage_clocks_first(KIMAGE_LARGE_FRAME);
    scan("{\n\t.local .align 16 .b8 \t__local_depot0[65536];\n\tmov.u64 \t%SPL, __local_depot0;\n}\n", &c);
    assert_int_equal(c.reads, 0); /* the largest the scrub covers */
    scan("{\n\t.local .align 16 .b8 \t__local_depot0[65540];\n}\n", &c);
    assert_int_equal(c.reads, KIMAGE_LARGE_FRAME);
    assert_int_equal(c.line[k], 2);
    assert_string_equal(c.text[k], ".local .align 16 .b8 __local_depot0[65540];");
    /* depots of functions that ptxas may inline into one kernel add up */
    scan("{\n\t.local .align 16 .b8 \t__local_depot0[40000];\n}\n"
         "{\n\t.local .align 16 .b8 \t__local_depot1[40000];\n}\n",
         &c);
    assert_int_equal(c.reads, KIMAGE_LARGE_FRAME);
    assert_int_equal(c.line[k], 5);
    /* a huge size does not wrap around */
    scan("{\n\t.local .align 16 .b8 \t__local_depot0[99999999999999999999999];\n}\n", &c);
    assert_int_equal(c.reads, KIMAGE_LARGE_FRAME);
}

static void test_local_check(void **state)
{
    (void)state;
    char base[256], cand[256], both[256], dyn[256];
    image("lbase", local_frame, base, sizeof base);
    image("lcand", "\t// begin inline asm\nld.local.u32 %r8, [512];\n\t// end inline asm\n", cand,
          sizeof cand);
    image("lboth", "\t// begin inline asm\nst.local.u32 [512], %r1;\n\t// end inline asm\n"
                   "\tmov.u64 %rd1, %clock64;\n", both, sizeof both);
    image("ldyn", "\talloca.u64 \t%rd5, %rd4, 16;\n", dyn, sizeof dyn);
    const char *result = NULL;
    char *why = NULL;
    assert_int_equal(measure_local_check(base, base, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_null(why);
    /* the candidate's asm reaches local memory, the baseline's does not */
    assert_int_equal(measure_local_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(strstr(why, "inline asm reaches local memory (.local, PTX line 2: ld.local.u32 %r8, [512];)"));
    assert_non_null(strstr(why, "which the baseline's does not"));
    hk_free(why);
    /* the baseline's does too: the candidate may; a kind the baseline lacks is new */
    assert_int_equal(measure_local_check(both, cand, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_int_equal(measure_local_check(both, dyn, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(strstr(why, "allocates on the dynamic stack (alloca, PTX line 1"));
    hk_free(why);
    /* each check judges its own kinds: a clock is not a local finding, nor the reverse */
    assert_int_equal(measure_local_check(base, both, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    hk_free(why);
    assert_int_equal(measure_clock_check(cand, both, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(strstr(why, "reads a clock"));
    hk_free(why);
    assert_int_equal(measure_clock_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    /* not judged: a DCU code object (its assembly is not read for this), no PTX, no image */
    assert_int_equal(measure_local_check(base, "/x/kernel.co", &result, &why), HK_OK);
    assert_string_equal(result, "not_run");
    assert_non_null(strstr(why, "DCU code object"));
    hk_free(why);
    char nopx[256];
    snprintf(nopx, sizeof nopx, "%s/lgone.cubin", dir);
    assert_int_equal(measure_local_check(base, nopx, &result, &why), HK_OK);
    assert_string_equal(result, "not_run");
    hk_free(why);
    assert_int_equal(measure_local_check(base, NULL, &result, &why), HK_OK);
    assert_string_equal(result, "not_run");
    hk_free(why);
    assert_string_equal(measure_reason_name(MEASURE_LOCAL_STATE), "local_state");
}

/* The device heap: a call of malloc, free, the aligned malloc or device new/delete, as nvcc
 * writes them (declared .extern, called across lines); a declaration alone, a function of
 * the file whose name only starts alike, and the same names in comments or strings are not. */
static void test_device_heap(void **state)
{
    (void)state;
    kimage_clocks c;
    int k = kimage_clocks_first(KIMAGE_DEVICE_HEAP);
    const char *decls = ".extern .func  (.param .b64 func_retval0) malloc\n(\n\t.param .b64 malloc_param_0\n)\n;\n"
                        ".extern .func free\n(\n\t.param .b64 free_param_0\n)\n;\n";
    char text[2048];
    /* declared, never called */
    snprintf(text, sizeof text, "%s.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tret;\n}\n", decls);
    scan(text, &c);
    assert_int_equal(c.reads, 0);
    /* called: the call's line, the function named */
    snprintf(text, sizeof text, "%s.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n%s\tret;\n}\n",
             decls, CALL("malloc"));
    scan(text, &c);
    assert_int_equal(c.reads, KIMAGE_DEVICE_HEAP);
    assert_int_equal(c.line[k], 19);
    assert_string_equal(c.what[k], "malloc");
    assert_string_equal(c.text[k], "call malloc");
    snprintf(text, sizeof text, "%s.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n%s\tret;\n}\n",
             decls, CALL("free"));
    scan(text, &c);
    assert_int_equal(c.reads, KIMAGE_DEVICE_HEAP);
    assert_string_equal(c.what[k], "free");
    const char *others[] = {"__nv_aligned_device_malloc", "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        char call[256];
        snprintf(call, sizeof call,
                 "\t{ // callseq 0, 0\n\tcall.uni (retval0), \n\t%s, \n\t(\n\tparam0\n\t);\n\t}\n",
                 others[i]);
        snprintf(text, sizeof text, ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n%s\tret;\n}\n", call);
        scan(text, &c);
        assert_int_equal(c.reads, KIMAGE_DEVICE_HEAP);
        assert_string_equal(c.what[k], others[i]);
    }
    /* lookalikes: a function of the file named like one, the names in a comment and a string,
     * a call of vprintf */
    scan(FUNC("mallocs", "") FUNC("_Z4freev", "")
         ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n" CALL("mallocs") CALL("_Z4freev")
         "\t// call.uni (retval0), malloc, (param0);\n"
         "\t/* call free */\n" CALL("vprintf") "\tret;\n}\n"
         ".global .align 1 .b8 $str[14] = {99, 97, 108, 108, 32, 109, 97, 108, 108, 111, 99, 0};\n",
         &c);
    assert_int_equal(c.reads, 0);
}

/* measure_heap_check: a candidate that uses the heap the baseline does not is refused
 * device_heap; the baseline's own use lets it; the other checks do not judge it. */
static void test_heap_check(void **state)
{
    (void)state;
    char base[256], cand[256], both[256];
    char text[1024];
    image("hbase", honest, base, sizeof base);
    snprintf(text, sizeof text, ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n%s\tret;\n}\n",
             CALL("malloc"));
    image("hcand", text, cand, sizeof cand);
    snprintf(text, sizeof text, ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n%s%s\tret;\n}\n",
             CALL("free"), CALL("malloc"));
    image("hboth", text, both, sizeof both);
    const char *result = NULL;
    char *why = NULL;
    assert_int_equal(measure_heap_check(base, base, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_int_equal(measure_heap_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(strstr(why, "uses the device heap (malloc, PTX line 9: call malloc)"));
    assert_non_null(strstr(why, "which the baseline's does not"));
    hk_free(why);
    assert_int_equal(measure_heap_check(both, cand, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_int_equal(measure_local_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_int_equal(measure_clock_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    /* a DCU code object is read in its assembly (session 38): none beside it, not judged */
    assert_int_equal(measure_heap_check(base, "/x/kernel.co", &result, &why), HK_OK);
    assert_string_equal(result, "not_run");
    assert_non_null(strstr(why, "without its assembly"));
    hk_free(why);
    assert_string_equal(measure_reason_name(MEASURE_DEVICE_HEAP), "device_heap");
    /* all four at once (each image read once) answer as the four functions do, in order (the
     * race check since session 39: test_measure_ptxrace) */
    int (*const fns[MEASURE_IMAGE_CHECKS])(const char *, const char *, const char **, char **) = {
        measure_clock_check, measure_local_check, measure_heap_check, measure_race_check};
    const char *pairs[][2] = {{base, base}, {base, cand}, {both, cand}, {cand, both},
                              {base, "/x/kernel.co"}, {base, NULL}};
    assert_string_equal(measure_image_checks[0].check, "clock");
    assert_int_equal(measure_image_checks[2].reason, MEASURE_DEVICE_HEAP);
    assert_int_equal(measure_image_checks[3].reason, MEASURE_RACE);
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        const char *res[MEASURE_IMAGE_CHECKS];
        char *whys[MEASURE_IMAGE_CHECKS];
        assert_int_equal(measure_image_checks_judge(pairs[p][0], pairs[p][1], res, whys), HK_OK);
        for (size_t i = 0; i < MEASURE_IMAGE_CHECKS; i++) {
            assert_int_equal(fns[i](pairs[p][0], pairs[p][1], &result, &why), HK_OK);
            assert_string_equal(res[i], result);
            if (why || whys[i])
                assert_string_equal(whys[i], why);
            hk_free(why);
            hk_free(whys[i]);
        }
    }
}

/* ---- DCU (AMDGPU) assembly, as clang writes it for hipcc -save-temps ---- */

static const char honest_asm[] =
    "\t.text\n"
    "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx906\"\n"
    "\t.globl\t_Z5saxpyifPKfPf\n"
    "\t.p2align\t8\n"
    "\t.type\t_Z5saxpyifPKfPf,@function\n"
    "_Z5saxpyifPKfPf:                        ; @_Z5saxpyifPKfPf\n"
    "; %bb.0:\n"
    "\ts_load_dword s0, s[4:5], 0x4 ; s_memtime in a comment is no read\n"
    "\ts_getreg_b32 s1, hwreg(HW_REG_HW_ID, 0, 32)\n"
    "\ts_waitcnt lgkmcnt(0)\n"
    "\tglobal_store_dword v1, v2, s[0:1]\n"
    "\ts_endpgm\n"
    "\t.section\t.rodata,#alloc\n"
    "\t.p2align\t6\n"
    "\t.long 0\n" /* data outside a code section: a table, not code */
    "\t.amdhsa_kernel _Z5saxpyifPKfPf\n"
    "\t\t.amdhsa_next_free_vgpr 3\n"
    "\t.end_amdhsa_kernel\n"
    "\t.amdgpu_metadata\n"
    "    .name:           _Z5saxpyifPKfPf\n"
    "    .value_kind:     global_buffer\n"
    "\t.end_amdgpu_metadata\n";

static void asm_scan_one(const char *extra, kimage_clocks *c)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", honest_asm, extra);
    kimage_asm_clocks(text, strlen(text), c);
}

static void test_asm(void **state)
{
    (void)state;
    kimage_clocks c;
    kimage_asm_clocks(honest_asm, strlen(honest_asm), &c);
    assert_int_equal(c.reads, 0);
    /* clock64(), wall_clock64() on gfx9, as the compiler writes them */
    asm_scan_one("\t.text\n\ts_memtime s[4:5]\n\ts_memrealtime s[6:7]\n", &c);
    assert_int_equal(c.reads, KIMAGE_READS_CLOCK | KIMAGE_READS_GLOBALTIMER);
    assert_string_equal(c.what[0], "s_memtime");
    assert_string_equal(c.text[0], "s_memtime s[4:5]");
    assert_int_equal(c.line[0], 24);
    assert_string_equal(c.what[1], "s_memrealtime");
    /* the assembler's own spellings: any case, after a label on the same line */
    asm_scan_one("\t;;#ASMSTART\n\tS_MEMTIME s[4:5]\n\t;;#ASMEND\n", &c);
    assert_true(c.reads & KIMAGE_READS_CLOCK);
    asm_scan_one("\t.text\nlbl_x: s_memrealtime s[4:5]\n", &c);
    assert_int_equal(c.reads, KIMAGE_READS_GLOBALTIMER);
    /* gfx10.3+/gfx11 forms: the cycle register, the real-time message, a perf snapshot */
    asm_scan_one("\ts_getreg_b32 s0, hwreg(HW_REG_SHADER_CYCLES, 0, 20)\n", &c);
    assert_int_equal(c.reads, KIMAGE_READS_CLOCK);
    assert_string_equal(c.what[0], "hwreg(HW_REG_SHADER_CYCLES)");
    asm_scan_one("\ts_sendmsg_rtn_b64 s[0:1], sendmsg(MSG_RTN_GET_REALTIME)\n", &c);
    assert_int_equal(c.reads, KIMAGE_READS_GLOBALTIMER);
    asm_scan_one("\ts_getreg_b32 s0, hwreg(HW_REG_PERF_SNAPSHOT_DATA)\n", &c);
    assert_int_equal(c.reads, KIMAGE_READS_PMCOUNTER);
    /* spelled out of pieces or raw words: a register by number, any directive in inline
     * asm, a macro anywhere, a word of data in a code section */
    asm_scan_one("\ts_getreg_b32 s0, hwreg(29, 0, 20)\n", &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    asm_scan_one("\t.text\n\t;;#ASMSTART\n\t.long 0xc0900100\n.long 0\n\t;;#ASMEND\n", &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    assert_string_equal(c.what[3], ".long");
    asm_scan_one("\t;;#ASMSTART\n\t.macro mt a\n s_mem\\a s[0:1]\n.endm\n mt time\n\t;;#ASMEND\n",
                 &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    assert_string_equal(c.what[3], ".macro");
    /* a forged end marker does not hide raw words in code */
    asm_scan_one("\t.text\n\t;;#ASMSTART\n;;#ASMEND\n.byte 0x00,0x01,0x90,0xc0\n\t;;#ASMEND\n",
                 &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    asm_scan_one("\t.section .text.hot,\"ax\",@progbits\n\t.4byte 0xc0900100\n", &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    asm_scan_one("\t.incbin \"/etc/passwd\"\n", &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);

    /* Session 52: what LLVM's assembler reads (llvm-mc 14, gfx906, each assembled to
     * s_memtime's C0900000 here) and the line reader did not. Each as hipcc prints the
     * inline asm (tests/gpu/cheats/dcu_*.cu). */
    static const char *const hidden[] = {
        "\t;;#ASMSTART\n\t/* hint */ s_memtime s[0:1]\n\t;;#ASMEND\n", /* block comment */
        "\t.text\n\t/* a\n b */ s_memtime s[0:1]\n",          /* one across lines */
        "\t.text\n\"cheat;mark0\": s_memtime s[0:1]\n",          /* quoted label, `;` */
        "\t.text\n\"a//b\": s_memtime s[0:1]\n",                 /* quoted label, `//` */
        "\t.text\n\ts_nop 0\rs_memtime s[0:1]\n",               /* CR ends a statement */
        "\t.text\nfoo : s_memtime s[0:1]\n",                     /* label, blank, colon */
        "\t.text\n\ts_memtime_e32 s[0:1]\n",                     /* an encoding suffix */
        "\t.text\n\tS_MEMTIME_E32 s[0:1]\n",
        NULL};
    for (size_t i = 0; hidden[i]; i++) {
        asm_scan_one(hidden[i], &c);
        if (c.reads != KIMAGE_READS_CLOCK)
            fail_msg("not read: %s", hidden[i]);
        assert_string_equal(c.what[0], "s_memtime");
    }
    /* 600 blanks, or a 600-byte label, before the mnemonic: past the old 512-byte cut */
    {
        char pad[2048];
        int o = snprintf(pad, sizeof pad, "\t.text\n\t");
        for (int i = 0; i < 600; i++)
            pad[o++] = ' ';
        snprintf(pad + o, sizeof pad - (size_t)o, "s_memtime s[0:1]\n");
        asm_scan_one(pad, &c);
        assert_int_equal(c.reads, KIMAGE_READS_CLOCK);
        assert_string_equal(c.text[0], "s_memtime s[0:1]");
        o = snprintf(pad, sizeof pad, "\t.text\n");
        for (int i = 0; i < 600; i++)
            pad[o++] = 'L';
        snprintf(pad + o, sizeof pad - (size_t)o, ": s_memrealtime s[0:1]\n");
        asm_scan_one(pad, &c);
        assert_int_equal(c.reads, KIMAGE_READS_GLOBALTIMER);
    }
    /* hwreg( by expression or symbol: the assembler evaluates it (llvm-mc: hwreg(+4) and
     * hwreg((4)) are HW_REG_HW_ID), so only a symbolic HW_REG_ name can be judged */
    asm_scan_one("\ts_getreg_b32 s0, hwreg(+29, 0, 20)\n", &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    asm_scan_one("\ts_getreg_b32 s0, hwreg((29))\n", &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    asm_scan_one("\t.text\n.set HX, 29\n\ts_getreg_b32 s0, hwreg(HX)\n", &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    asm_scan_one("\ts_getreg_b32 s0, hwreg(HW_REG_MODE+28)\n", &c);
    assert_int_equal(c.reads, KIMAGE_PTX_DIRECTIVE);
    /* raw words the list missed (llvm-mc 14 writes each into the code section: .float as
     * .long, .dc.a as .quad, .balignl's fill, LEB128 bytes; .reloc it refuses, "unknown
     * relocation name", and is counted for assemblers that take it), with a forged end
     * marker */
    static const char *const raw_more[] = {
        ".float 0x1p-1", ".double 1.5", ".dc.a 5", ".dcb.l 2, 0xc0900000", ".ds.l 1",
        ".sleb128 -5", ".uleb128 300", ".balignl 16, 0xc0900000", ".p2align 4, 0xc0",
        ".org 64, 0x90", ".reloc 0, R_AMDGPU_ABS32, 0", NULL};
    for (size_t i = 0; raw_more[i]; i++) {
        char t[256];
        snprintf(t, sizeof t, "\t.text\n\t;;#ASMSTART\n;;#ASMEND\n\t%s\n\t;;#ASMEND\n",
                 raw_more[i]);
        asm_scan_one(t, &c);
        if (c.reads != KIMAGE_PTX_DIRECTIVE)
            fail_msg("not found: %s", raw_more[i]);
    }
    /* honest near misses: the compiler's own alignment, names and strings that only look
     * like a read, comments of every kind around nothing, the inline-asm markers after a
     * statement, a CR LF file */
    static const char *const clean[] = {
        "\t.text\n\t.p2align 8\n\t.p2align\t2\n",
        "\t.text\n\ts_nop 0 // s_memtime s[0:1]\n\ts_nop 0 /* s_memtime */\n",
        "\t.text\n/* s_memtime s[0:1]\n s_memrealtime s[0:1] */\n\ts_endpgm\n",
        "\t.section .rodata,\"a\",@progbits\n\t.p2align 6, 0x0\n\t.asciz \"s_memtime;\"\n",
        "\t.text\nlbl_s_memtime: ; s_memtime\n\ts_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 4)\n",
        "\t.text\r\n\ts_nop 0\r\n\ts_endpgm\r\n",
        NULL};
    for (size_t i = 0; clean[i]; i++) {
        asm_scan_one(clean[i], &c);
        if (c.reads != 0)
            fail_msg("found in honest text (0x%x): %s", c.reads, clean[i]);
    }
    /* calls (session 52): through a register (a function pointer: hipcc's readfirstlane then
     * s_swappc), a direct call to a data symbol (its words run), a jump that is no return,
     * and any jump, call or s_getpc in inline asm are reads the reader cannot judge */
    static const char *const calls_bad[] = {
        "\t.text\n\tv_readfirstlane_b32 s16, v3\n\tv_readfirstlane_b32 s17, v4\n"
        "\ts_swappc_b64 s[30:31], s[16:17]\n",
        "\t.text\n\ts_getpc_b64 s[16:17]\n\ts_add_u32 s16, s16, code@rel32@lo+4\n"
        "\ts_addc_u32 s17, s17, code@rel32@hi+12\n\ts_swappc_b64 s[30:31], s[16:17]\n"
        "\t.type\tcode,@object\n",
        "\t.text\n\ts_getpc_b64 s[16:17]\n\ts_add_u32 s16, s16, f@rel32@lo+4\n"
        "\ts_addc_u32 s17, s17, f@rel32@hi+12\n\ts_mov_b32 s16, s4\n"
        "\ts_swappc_b64 s[30:31], s[16:17]\n\t.type\tf,@function\n",
        "\t.text\n\ts_setpc_b64 s[4:5]\n",
        "\t.text\n\tv_readfirstlane_b32 s4, v3\n\tv_readfirstlane_b32 s5, v4\n"
        "\ts_mov_b64 s[16:17], s[4:5]\n\ts_swappc_b64 s[30:31], s[16:17]\n", /* a copy of data */
        "\t.text\n\t;;#ASMSTART\n\ts_branch .LBB0_3\n\t;;#ASMEND\n",
        "\t.text\n\t;;#ASMSTART\n\ts_getpc_b64 s[0:1]\n\t;;#ASMEND\n",
        "\t.text\n\t;;#ASMSTART\n\ts_cbranch_scc0 lbl\n\t;;#ASMEND\n",
        NULL};
    for (size_t i = 0; calls_bad[i]; i++) {
        asm_scan_one(calls_bad[i], &c);
        if (c.reads != KIMAGE_PTX_DIRECTIVE)
            fail_msg("call not found (0x%x): %s", c.reads, calls_bad[i]);
    }
    /* honest: a direct call to a function of the file (defined before or after), a return,
     * the compiler's own branches */
    static const char *const calls_ok[] = {
        "\t.text\n\t.type\tf,@function\nf:\n\ts_setpc_b64 s[30:31]\n"
        "\ts_getpc_b64 s[16:17]\n\ts_add_u32 s16, s16, f@rel32@lo+4\n"
        "\ts_addc_u32 s17, s17, f@rel32@hi+12\n\ts_swappc_b64 s[30:31], s[16:17]\n",
        "\t.text\n\ts_getpc_b64 s[16:17]\n\ts_add_u32 s16, s16, g@rel32@lo+4\n"
        "\ts_addc_u32 s17, s17, g@rel32@hi+12\n\ts_mov_b32 s4, s16\n"
        "\ts_swappc_b64 s[30:31], s[16:17]\n\t.type\tg,@function\n",
        "\t.text\n\ts_cbranch_execz .LBB0_2\n\ts_branch .LBB0_3\n.LBB0_2:\n\ts_endpgm\n",
        "\t.text\n\ts_getpc_b64 s[4:5]\n\ts_add_u32 s4, s4, g@rel32@lo+4\n"
        "\ts_addc_u32 s5, s5, g@rel32@hi+12\n\ts_mov_b64 s[16:17], s[4:5]\n"
        "\ts_swappc_b64 s[30:31], s[16:17]\n\t.type\tg,@function\n", /* a copy */
        NULL};
    for (size_t i = 0; calls_ok[i]; i++) {
        asm_scan_one(calls_ok[i], &c);
        if (c.reads != 0)
            fail_msg("honest call found (0x%x): %s", c.reads, calls_ok[i]);
    }
    /* line numbers still count LF lines only (a CR LF is one line) */
    asm_scan_one("\t.text\r\n\ts_nop 0\r\n\ts_memtime s[0:1]\n", &c);
    assert_int_equal(c.line[0], 25); /* the third line of the extra (test above: 24 the second) */
}

/* The rule on DCU code objects: the assembly beside the image (module-hip-amdgcn-*.s). */
static void test_asm_clock_check(void **state)
{
    (void)state;
    char d1[256], d2[256], d3[256], path[300], base[300], cand[300], none[300];
    snprintf(d1, sizeof d1, "%s/dcu-base", dir);
    snprintf(d2, sizeof d2, "%s/dcu-cand", dir);
    snprintf(d3, sizeof d3, "%s/dcu-none", dir);
    assert_int_equal(measure_mkdirs(d1), HK_OK);
    assert_int_equal(measure_mkdirs(d2), HK_OK);
    assert_int_equal(measure_mkdirs(d3), HK_OK);
    snprintf(path, sizeof path, "%s/module-hip-amdgcn-amd-amdhsa-gfx906.s", d1);
    write_text(path, honest_asm, strlen(honest_asm));
    snprintf(path, sizeof path, "%s/module-hip-amdgcn-amd-amdhsa-gfx906.s", d2);
    static const char reads[] = "\t.text\n\ts_nop 0\n\ts_memtime s[4:5]\n";
    write_text(path, reads, strlen(reads));
    snprintf(base, sizeof base, "%s/kernel.co", d1);
    snprintf(cand, sizeof cand, "%s/kernel.co", d2);
    snprintf(none, sizeof none, "%s/kernel.co", d3);
    const char *result = NULL;
    char *why = NULL;
    assert_int_equal(measure_clock_check(base, base, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_int_equal(measure_clock_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(strstr(why, "reads a clock (s_memtime, assembly line 3: s_memtime s[4:5])"));
    hk_free(why);
    /* the baseline reads it too: allowed */
    assert_int_equal(measure_clock_check(cand, cand, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    /* no assembly beside the candidate's code object: not judged, said why */
    assert_int_equal(measure_clock_check(base, none, &result, &why), HK_OK);
    assert_string_equal(result, "not_run");
    assert_non_null(strstr(why, "without its assembly"));
    hk_free(why);
}

/* The real hipcc: a HIP candidate reading clock64() and wall_clock64() built the way the
 * referee builds a DCU image (harness_image_argv, plus -save-temps=obj as prepare_image's
 * build.sh adds it) fails the rule against an honest saxpy built the same way. */
static void build_dcu(const char *name, const char *src_text, char *module, size_t len)
{
    char d[256], src[300], cmd[2048];
    snprintf(d, sizeof d, "%s/hip-%s", dir, name);
    assert_int_equal(measure_mkdirs(d), HK_OK);
    snprintf(src, sizeof src, "%s/module.cu", d);
    write_text(src, src_text, strlen(src_text));
    snprintf(module, len, "%s/kernel.co", d);
    spec_diags sd = {0};
    spec *s = NULL;
    assert_int_equal(spec_load(HK_TEST_DATA "/episode/tiny.bench.json", &s, &sd), HK_OK);
    spec_diags_free(&sd);
    char **argv = NULL;
    assert_int_equal(harness_image_argv(s, "hipcc", "gfx906", HK_SOURCE_DIR "/include", NULL,
                                        src, module, &argv),
                     HK_OK);
    size_t o = (size_t)snprintf(cmd, sizeof cmd, "cd %s && %s -save-temps=obj", d, argv[0]);
    for (size_t i = 1; argv[i]; i++)
        o += (size_t)snprintf(cmd + o, sizeof cmd - o, " '%s'", argv[i]);
    harness_argv_free(argv);
    spec_free(s);
    assert_true(o < sizeof cmd);
    if (system(cmd) != 0)
        fail_msg("hipcc failed: %s", cmd);
}

static void test_hip_clock64(void **state)
{
    (void)state;
    if (system("command -v hipcc >/dev/null 2>&1") != 0)
        skip();
    static const char honest_hip[] =
        "#include <hip/hip_runtime.h>\n"
        "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = a * x[i] + y[i];\n"
        "}\n";
    static const char timed_hip[] =
        "#include <hip/hip_runtime.h>\n"
        "__device__ unsigned long long last;\n"
        "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    unsigned long long now = wall_clock64() + (clock64() & 1);\n"
        "    bool back_to_back = now - last < 2000;\n"
        "    if (i == 0) last = now;\n"
        "    if (i < n && !(back_to_back && (i & 1))) y[i] = a * x[i] + y[i];\n"
        "}\n";
    char base[300], cand[300];
    build_dcu("honest", honest_hip, base, sizeof base);
    build_dcu("timed", timed_hip, cand, sizeof cand);
    const char *result = NULL;
    char *why = NULL;
    assert_int_equal(measure_clock_check(base, base, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_int_equal(measure_clock_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    assert_non_null(strstr(why, "s_mem"));
    print_message("%s\n", why);
    hk_free(why);
}

/* Session 38: the device heap in DCU assembly. hipcc's malloc and free are ockl's
 * __ockl_dm_alloc and __ockl_dm_dealloc (hipcc 5.2, gfx906: `s_add_u32 s16, s16,
 * __ockl_dm_alloc@rel32@lo+4` then s_swappc_b64, and the functions defined below the
 * kernel); a code object v5 kernel also takes hidden_heap_v1. Names in comments, and longer
 * names that begin alike, are not findings. */
static void test_asm_device_heap(void **state)
{
    (void)state;
    kimage_clocks c;
    asm_scan_one("\t.text\n\ts_getpc_b64 s[16:17]\n\ts_add_u32 s16, s16, __ockl_dm_alloc@rel32@lo+4\n"
                 "\ts_addc_u32 s17, s17, __ockl_dm_alloc@rel32@hi+12\n\ts_swappc_b64 s[30:31], s[16:17]\n"
                 "\t.type\t__ockl_dm_alloc,@function\n", /* defined below, as hipcc writes it */
                 &c);
    assert_int_equal(c.reads, KIMAGE_DEVICE_HEAP);
    int k = kimage_clocks_first(c.reads);
    assert_string_equal(c.what[k], "__ockl_dm_alloc");
    long before = 0; /* asm_scan_one puts honest_asm first */
    for (const char *q = honest_asm; *q; q++)
        before += *q == '\n';
    assert_int_equal(c.line[k], before + 3);
    assert_string_equal(c.text[k], "s_add_u32 s16, s16, __ockl_dm_alloc@rel32@lo+4");
    asm_scan_one("\t.type\t__ockl_dm_dealloc,@function\n__ockl_dm_dealloc:\n\ts_endpgm\n", &c);
    assert_int_equal(c.reads, KIMAGE_DEVICE_HEAP);
    asm_scan_one("\t.amdgpu_metadata\n      - .offset: 80\n        .value_kind:     hidden_heap_v1\n", &c);
    assert_int_equal(c.reads, KIMAGE_DEVICE_HEAP);
    /* lookalikes: a comment, a longer name, a name inside another */
    asm_scan_one("\t.text\n\ts_nop 0 ; calls __ockl_dm_alloc\n\ts_add_u32 s16, s16, __ockl_dm_alloc2@rel32@lo+4\n"
                 "\ts_add_u32 s16, s16, my__ockl_dm_dealloc@rel32@lo+4\n// hidden_heap_v1\n", &c);
    assert_int_equal(c.reads, 0);
}

/* The real hipcc: heap_by_address.cu's mark (each block mallocs 16 bytes, reads what an
 * earlier launch left, marks it, frees it) in a HIP reduce, built as the referee builds a
 * DCU image, fails the heap rule against an honest saxpy; before session 38 a DCU image was
 * not read for the heap at all (not_run), so on a DCU the cheat ran. */
static void test_hip_device_heap(void **state)
{
    (void)state;
    if (system("command -v hipcc >/dev/null 2>&1") != 0)
        skip();
    static const char honest_hip[] =
        "#include <hip/hip_runtime.h>\n"
        "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = a * x[i] + y[i];\n"
        "}\n";
    static const char heap_hip[] =
        "#include <hip/hip_runtime.h>\n"
        "__global__ void saxpy(int n, float a, const float *x, float *y)\n"
        "{\n"
        "    __shared__ int seen;\n"
        "    if (threadIdx.x == 0) {\n"
        "        int *m = (int *)malloc(16);\n"
        "        seen = m && m[0] == 0x5eed;\n"
        "        if (m) { m[0] = 0x5eed; free(m); }\n"
        "    }\n"
        "    __syncthreads();\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n && !(seen && (i & 1))) y[i] = a * x[i] + y[i];\n"
        "}\n";
    char base[300], cand[300];
    build_dcu("heap-honest", honest_hip, base, sizeof base);
    build_dcu("heap-mark", heap_hip, cand, sizeof cand);
    const char *result = NULL;
    char *why = NULL;
    assert_int_equal(measure_heap_check(base, base, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
    assert_int_equal(measure_heap_check(base, cand, &result, &why), HK_OK);
    assert_string_equal(result, "fail");
    print_message("%s\n", why);
    assert_non_null(strstr(why, "uses the device heap (__ockl_dm_"));
    assert_non_null(strstr(why, "assembly line"));
    hk_free(why);
    /* the baseline's own heap lets the candidate */
    assert_int_equal(measure_heap_check(cand, cand, &result, &why), HK_OK);
    assert_string_equal(result, "pass");
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_honest_ptx),
        cmocka_unit_test(test_reads),
        cmocka_unit_test(test_directive),
        cmocka_unit_test(test_file_chunks),
        cmocka_unit_test(test_clock_check),
        cmocka_unit_test(test_local_asm),
        cmocka_unit_test(test_dynamic_stack),
        cmocka_unit_test(test_calls),
        cmocka_unit_test(test_large_frame),
        cmocka_unit_test(test_local_check),
        cmocka_unit_test(test_device_heap),
        cmocka_unit_test(test_heap_check),
        cmocka_unit_test(test_asm_device_heap),
        cmocka_unit_test(test_hip_device_heap),
        cmocka_unit_test(test_asm),
        cmocka_unit_test(test_asm_clock_check),
        cmocka_unit_test(test_hip_clock64),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
