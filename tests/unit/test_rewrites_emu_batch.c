/* The batched block emulator (emu_batch.h) and the emulator's fiber switches
 * (emu_block_rt.hpp): several programs in one g++ run, each still run in its own process,
 * checked against its own want and named when it is not as wanted; a case that does not
 * build alone is named EMU_NO_BUILD and the others still run; macros of one case do not
 * reach another; a brace one case leaves open and the next closes fails the batch instead
 * of passing both; and the two ways of switching fibers (_setjmp/_longjmp, swapcontext)
 * give the same results. */
#include "analysis/analysis.h"
#include "core/hk.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "rw_fixture.h"
#include "emu_block.h"
#include "emu_batch.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("rewrites-emu-batch");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

/* A block sum with a barrier and a warp shuffle: out[blockIdx.x] = sum of its 64 inputs. */
static const char block_sum[] =
    "#define WIDTH 64\n"
    "__global__ void block_sum(const float *in, float *out)\n"
    "{\n"
    "    __shared__ float part[WIDTH / 32];\n"
    "    float v = in[blockIdx.x * WIDTH + threadIdx.x];\n"
    "    for (int o = 16; o > 0; o /= 2)\n"
    "        v += __shfl_down_sync(0xffffffffu, v, o);\n"
    "    if (threadIdx.x % 32 == 0)\n"
    "        part[threadIdx.x / 32] = v;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0)\n"
    "        out[blockIdx.x] = part[0] + part[1];\n"
    "}\n";

/* Integers: the sums are exact in any order, so the comparison is bit for bit. */
static const char sum_driver[] =
    "for (int s = 0; s < 3; s++) {\n"
    "    emu::schedule = s;\n"
    "    emu::buf<float> in(5 * 64), o(5), c(5);\n"
    "    in.fill_mod(s + 1, 9);\n"
    "    emu::launch(dim3(5), dim3(64), 0, [&] { orig::block_sum(in, o); });\n"
    "    emu::launch(dim3(5), dim3(64), 0, [&] { cand::block_sum(in, c); });\n"
    "    emu::expect(\"block_sum\", o, c, 0);\n"
    "    for (int b = 0; b < 5; b++) printf(\"sum %d %d %.1f\\n\", s, b, (double)c[b]);\n"
    "}\n";

/* One batch, one g++ run: a case that matches, one that differs, one whose barrier only some
 * threads reach, each with its own result; and two cases that would break each other if one's
 * macros leaked into the next (its `n`, and its warpSize, which it undefines and redefines). */
static void batch_runs_each_case(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch b;
    emu_batch_init(&b, tmpdir, "each");
    emu_batch_add_pair(&b, "same", block_sum, block_sum, NULL, sum_driver, EMU_OK);
    char *differs = emu_replaced(block_sum, "part[0] + part[1]", "part[0] + part[1] + 1.0f");
    emu_batch_add_pair(&b, "differs", block_sum, differs, NULL, sum_driver, EMU_DIFFERS);
    char *divergent = emu_replaced(block_sum, "    __syncthreads();", "    if (threadIdx.x < 40) __syncthreads();");
    emu_batch_add_pair(&b, "divergent", block_sum, divergent, NULL, sum_driver, EMU_DIVERGENT);
    /* a macro named like the next case's variable, and the runtime's warpSize redefined */
    emu_batch_add_pair(&b, "macro_n", block_sum, block_sum, "#define n 7\n#undef warpSize\n#define warpSize 5\n",
                       "emu::buf<float> in(64), o(1), c(1); in.fill(n);\n"
                       "emu::launch(dim3(1), dim3(64), 0, [&] { orig::block_sum(in, o); });\n"
                       "emu::launch(dim3(1), dim3(64), 0, [&] { cand::block_sum(in, c); });\n"
                       "emu::expect(\"n\", o, c, 0); if (warpSize != 5) emu::failures++;",
                       EMU_OK);
    emu_batch_add_pair(&b, "uses_n", block_sum, block_sum, NULL,
                       "const int n = 64; emu::buf<float> in(n), o(1), c(1); in.fill(3);\n"
                       "emu::launch(dim3(1), dim3(n), 0, [&] { orig::block_sum(in, o); });\n"
                       "emu::launch(dim3(1), dim3(n), 0, [&] { cand::block_sum(in, c); });\n"
                       "emu::expect(\"n\", o, c, 0); if (warpSize != 32) emu::failures++;",
                       EMU_OK);
    assert_int_equal(emu_batch_finish(&b), 0);
    assert_int_equal(b.builds, 1);
    assert_int_equal(b.cases[0].got, EMU_OK);
    assert_int_equal(b.cases[1].got, EMU_DIFFERS);
    assert_non_null(strstr(b.cases[1].log, "block_sum"));
    assert_int_equal(b.cases[2].got, EMU_DIVERGENT);
    assert_non_null(strstr(b.cases[2].log, "EMU DIVERGENT"));
    assert_int_equal(b.cases[3].got, EMU_OK);
    assert_int_equal(b.cases[4].got, EMU_OK);
    /* each case ran alone: the first one's lines only in its own output */
    assert_non_null(strstr(b.cases[0].log, "sum 2 4 "));
    assert_null(strstr(b.cases[3].log, "sum "));
    free(divergent);
    free(differs);
}

/* A case that does not compile: the batch is built again one case at a time; the broken one
 * is EMU_NO_BUILD with g++'s message naming its own source and line, the others still run,
 * and the batch's result counts the one case that was not as wanted. */
static void batch_names_a_case_that_does_not_build(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch b;
    emu_batch_init(&b, tmpdir, "broken");
    emu_batch_add_pair(&b, "first", block_sum, block_sum, NULL, sum_driver, EMU_OK);
    char *broken = emu_replaced(block_sum, "    __syncthreads();", "    __syncthreads() no_such_thing;");
    emu_batch_add_pair(&b, "broken", block_sum, broken, NULL, sum_driver, EMU_OK);
    emu_batch_add_pair(&b, "last", block_sum, block_sum, NULL, sum_driver, EMU_OK);
    /* a case that must not build is built alone from the start */
    emu_batch_add_pair(&b, "wants_no_build", block_sum, broken, NULL, sum_driver, EMU_NO_BUILD);
    assert_true(b.cases[3].alone);
    assert_int_equal(emu_batch_finish(&b), 1);
    assert_int_equal(b.builds, 1 + 3 + 1);
    assert_int_equal(b.cases[0].got, EMU_OK);
    assert_int_equal(b.cases[1].got, EMU_NO_BUILD);
    assert_non_null(strstr(b.cases[1].log, "cand:10"));
    assert_int_equal(b.cases[2].got, EMU_OK);
    assert_int_equal(b.cases[3].got, EMU_NO_BUILD);
    /* the failed case is kept as a program of its own, which builds as it failed */
    char kept[700];
    snprintf(kept, sizeof kept, "%s/emu_failed_broken.cpp", HK_BINARY_DIR);
    assert_int_equal(access(kept, R_OK), 0);
    free(broken);
}

/* One case's helpers open a namespace and the next case's close it: alone, neither builds;
 * in one text they would, so the batch must fail on its markers and build each alone. */
static void open_brace_across_cases_fails(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch b;
    emu_batch_init(&b, tmpdir, "brace");
    /* wanted as EMU_OK, so that they share the batch (a case that wants EMU_NO_BUILD is
     * built alone from the start): both are reported as not building */
    emu_batch_add_pair(&b, "opens", block_sum, block_sum, "namespace left_open {\n", "", EMU_OK);
    emu_batch_add_pair(&b, "closes", block_sum, block_sum, "}\n", "", EMU_OK);
    assert_false(b.cases[0].alone || b.cases[1].alone);
    assert_int_equal(emu_batch_finish(&b), 2);
    assert_int_equal(b.builds, 3);
    assert_int_equal(b.cases[0].got, EMU_NO_BUILD);
    assert_int_equal(b.cases[1].got, EMU_NO_BUILD);
}

/* The two fiber switches of emu_block_rt.hpp give the same output on barriers, shuffles and
 * three thread orders: the program prints every block's sum and which switch it used. */
static void fiber_switches_agree(void **state)
{
    (void)state;
    SKIP_WITHOUT_EMULATOR();
    static emu_batch b;
    emu_batch_init(&b, tmpdir, "switch");
    char driver[2048];
    snprintf(driver, sizeof driver, "printf(\"plain %%d\\n\", (int)emu::plain_jumps);\n%s", sum_driver);
    emu_batch_add_pair(&b, "plain", block_sum, block_sum, NULL, driver, EMU_OK);
    emu_batch_add_pair(&b, "ucontext", block_sum, block_sum, NULL, driver, EMU_OK);
    emu_batch_run(&b);
    char *plain_log = strdup(b.cases[0].log);
    assert_non_null(plain_log);
    /* the second case again, its switches swapcontext */
    char exe[800];
    snprintf(exe, sizeof exe, "%s/emu_batch_switch", tmpdir);
    assert_int_equal(setenv("EMU_SWITCH", "ucontext", 1), 0);
    emu_batch_exec(&b.cases[1], exe, 1);
    assert_int_equal(unsetenv("EMU_SWITCH"), 0);
    assert_int_equal(b.cases[1].got, EMU_OK);
    assert_non_null(strstr(b.cases[1].log, "plain 0\n"));
    /* without a shadow stack (this machine, and any CI without CET) the default is plain */
    if (!strstr(plain_log, "plain 1\n"))
        print_message("note: the emulator uses swapcontext here (a shadow stack?)\n");
    const char *a = strchr(plain_log, '\n'), *c = strchr(b.cases[1].log, '\n');
    assert_true(a && c);
    assert_non_null(strstr(a, "sum 2 4 "));
    assert_string_equal(a, c);
    free(plain_log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(batch_runs_each_case),
        cmocka_unit_test(batch_names_a_case_that_does_not_build),
        cmocka_unit_test(open_brace_across_cases_fails),
        cmocka_unit_test(fiber_switches_agree),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
