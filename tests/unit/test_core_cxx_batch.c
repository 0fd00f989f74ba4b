/* The tests' batch of host programs (tests/unit/cxx_batch.h): several programs after one
 * head in one g++ run, each still run in its own process and checked against its own want
 * (a pass with its text, a difference, anything else); a case that does not build is named
 * CXX_NO_BUILD and the others still run; a case's macros do not reach another; a case with
 * an #include is built alone; a brace one case leaves open and the next closes fails both
 * instead of passing them; a case not as wanted is kept as a program of its own. */
#include "core/hk.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_nvcc.h"
#include "cxx_batch.h"

static char tmpdir[512];
static cxx_batch batch;

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "%s/test-cxx-batch-XXXXXX", HK_BINARY_DIR);
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cxx_batch_free(&batch);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void need_cxx(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "'%s' --version >/dev/null 2>&1", TEST_CXX);
    if (system(cmd) != 0) {
        print_message("skipped: no g++\n");
        skip();
    }
}

/* A global of the head each case counts on: 1 in every case, so each runs in a process of
 * its own (a second case in the same process would see 2). */
static const char head[] = "#define HEAD_MACRO 7\nstatic int calls;\nstatic int count(void) { return ++calls; }\n";

static void opens(const char *name, const char *cxx)
{
    cxx_batch_init(&batch, tmpdir, name, cxx, "-std=c++17 -O1", head);
}

static void runs_each_case_against_its_want(void **state)
{
    (void)state;
    need_cxx();
    opens("wants", TEST_CXX);
    cxx_batch_add(&batch, "pass", "int main(void) { printf(\"calls %d\\n\", count()); return 0; }", "calls 1",
                  CXX_PASS);
    cxx_batch_add(&batch, "differs", "int main(void) { count(); puts(\"differs\"); return 1; }", "", CXX_DIFFERS);
    cxx_batch_add(&batch, "again", "int main() { return count() == 1 ? (puts(\"alone\"), 0) : 1; }", "alone",
                  CXX_PASS);
    /* not as wanted: exits 0 without its text, exits 2, differs where it should pass */
    cxx_batch_add(&batch, "silent", "int main(void) { return 0; }", "calls", CXX_PASS);
    cxx_batch_add(&batch, "crashes", "int main(void) { return 2; }", "", CXX_DIFFERS);
    cxx_batch_add(&batch, "wrong", "int main(void) { puts(\"FAIL\"); return 1; }", "OK", CXX_PASS);
    assert_int_equal(cxx_batch_finish(&batch), 3);
    assert_int_equal(batch.builds, 1);
    static const int got[] = {CXX_PASS, CXX_DIFFERS, CXX_PASS, CXX_OTHER, CXX_OTHER, CXX_DIFFERS};
    for (size_t k = 0; k < HK_ARRAY_LEN(got); k++)
        assert_int_equal(batch.cases[k].got, got[k]);
    assert_non_null(strstr(batch.cases[0].log, "calls 1"));
    /* each case not as wanted is kept as a program of its own */
    char kept[700];
    snprintf(kept, sizeof kept, "%s/emu_failed_silent.cpp", HK_BINARY_DIR);
    assert_int_equal(access(kept, R_OK), 0);
    unlink(kept);
    snprintf(kept, sizeof kept, "%s/emu_failed_crashes.cpp", HK_BINARY_DIR);
    unlink(kept);
    snprintf(kept, sizeof kept, "%s/emu_failed_wrong.cpp", HK_BINARY_DIR);
    unlink(kept);
}

static void names_the_case_that_does_not_build(void **state)
{
    (void)state;
    need_cxx();
    opens("build", TEST_CXX);
    cxx_batch_add(&batch, "fine", "int main(void) { puts(\"OK\"); return 0; }", "OK", CXX_PASS);
    cxx_batch_add(&batch, "typo", "int main(void) { undeclared_name(); return 0; }", "OK", CXX_PASS);
    cxx_batch_add(&batch, "fine2", "int main(void) { puts(\"OK\"); return 0; }", "OK", CXX_PASS);
    assert_int_equal(cxx_batch_finish(&batch), 1);
    assert_int_equal(batch.builds, 4);   /* the batch, then each alone */
    assert_int_equal(batch.cases[0].got, CXX_PASS);
    assert_int_equal(batch.cases[1].got, CXX_NO_BUILD);
    assert_non_null(strstr(batch.cases[1].log, "undeclared_name"));
    assert_int_equal(batch.cases[2].got, CXX_PASS);
    char kept[700];
    snprintf(kept, sizeof kept, "%s/emu_failed_typo.cpp", HK_BINARY_DIR);
    unlink(kept);
}

static void macros_stay_in_their_case(void **state)
{
    (void)state;
    need_cxx();
    opens("macros", TEST_CXX);
    /* the second case redefines the first's macro and the third sees neither; the third's
     * #undef of the head's macro does not reach the fourth */
    cxx_batch_add(&batch, "defines", "#define VAL 1\nint main(void) { printf(\"val %d\\n\", VAL); return 0; }",
                  "val 1", CXX_PASS);
    cxx_batch_add(&batch, "redefines", "#define VAL 2\nint main(void) { printf(\"val %d\\n\", VAL); return 0; }",
                  "val 2", CXX_PASS);
    cxx_batch_add(&batch, "sees_none",
                  "#ifdef VAL\n#define SEEN \"leak\"\n#else\n#define SEEN \"clean\"\n#endif\n"
                  "#undef HEAD_MACRO\n"
                  "int main(void) { puts(SEEN); return 0; }", "clean", CXX_PASS);
    cxx_batch_add(&batch, "head_intact", "int main(void) { printf(\"head %d\\n\", HEAD_MACRO); return 0; }",
                  "head 7", CXX_PASS);
    /* an #include: built alone, and still run */
    cxx_batch_add(&batch, "includes", "#include <string.h>\nint main(void) { puts(strchr(\"xOK\", 'O')); return 0; }",
                  "OK", CXX_PASS);
    assert_true(batch.cases[4].alone);
    assert_false(batch.cases[0].alone);
    assert_int_equal(cxx_batch_finish(&batch), 0);
    assert_int_equal(batch.builds, 2);
}

static void open_brace_across_cases_fails(void **state)
{
    (void)state;
    need_cxx();
    opens("brace", TEST_CXX);
    /* alone, neither builds; together the second's brace would close the first's */
    cxx_batch_add(&batch, "opens", "namespace x {\nint main(void) { puts(\"OK\"); return 0; }", "OK", CXX_PASS);
    cxx_batch_add(&batch, "closes", "}\nint main(void) { puts(\"OK\"); return 0; }", "OK", CXX_PASS);
    assert_int_equal(cxx_batch_finish(&batch), 2);
    assert_int_equal(batch.cases[0].got, CXX_NO_BUILD);
    assert_int_equal(batch.cases[1].got, CXX_NO_BUILD);
    char kept[700];
    snprintf(kept, sizeof kept, "%s/emu_failed_opens.cpp", HK_BINARY_DIR);
    unlink(kept);
    snprintf(kept, sizeof kept, "%s/emu_failed_closes.cpp", HK_BINARY_DIR);
    unlink(kept);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(runs_each_case_against_its_want),
        cmocka_unit_test(names_the_case_that_does_not_build),
        cmocka_unit_test(macros_stay_in_their_case),
        cmocka_unit_test(open_brace_across_cases_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
