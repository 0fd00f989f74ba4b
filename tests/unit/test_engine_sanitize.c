/* sanitize.c: the parser on compute-sanitizer's output recorded on an H200
 * (tests/data/sanitize/, README there), the judging of one tool's run, which candidates
 * get the tools, the "not checked" note without the tool, and the whole sequence through the
 * real runner with a stand-in tool (tests/data/sanitize/fake_compute_sanitizer.sh) and a
 * fake benchmark program (tests/data/episode/fake_harness.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hk.h"
#include "measure/sanitize.h"
#include "said_zh.h"

#define FIXTURES HK_TEST_DATA "/sanitize"
#define FAKE_TOOL FIXTURES "/fake_compute_sanitizer.sh"

static const char *const tool_names_for_test[] = {"memcheck", "racecheck", "initcheck"};

static char *slurp(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FIXTURES, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void parse(const char *name, sanitize_report *r)
{
    sanitize_parse(slurp(name), r);
}

/* ---- the parser on recorded output ---- */

static void test_parse_memcheck_read(void **state)
{
    (void)state;
    sanitize_report r;
    parse("memcheck_oob_read.txt", &r);
    assert_true(r.found);
    assert_false(r.warning);
    assert_int_equal(r.errors, 1);
    assert_string_equal(r.finding,
                        "Invalid __global__ read of size 16 bytes; "
                        "at saxpy_tail(int, float, const float *, float *)+0xf0 in probe.cu:33; "
                        "by thread (144,0,0) in block (976,0,0); "
                        "Access to 0x7fd682bd0900 is out of bounds; "
                        "and is inside the nearest allocation at 0x7fd682800000 of size "
                        "4,000,012 bytes");
    assert_string_equal(r.location, "probe.cu:33");
    assert_string_equal(r.tool_error, "");
}

static void test_parse_memcheck_write(void **state)
{
    (void)state;
    sanitize_report r;
    parse("memcheck_oob_write.txt", &r);
    assert_true(r.found);
    assert_int_equal(r.errors, 1);
    assert_non_null(strstr(r.finding, "Invalid __global__ write of size 4 bytes; at write_past"));
    assert_non_null(strstr(r.finding, "is 1 bytes after the nearest allocation"));
    assert_null(strstr(r.finding, "Host Frame"));
    assert_string_equal(r.location, "probe.cu:45");
    /* the tool's defaults add an API error and "Target application returned an error":
     * the first finding is still the invalid write */
    parse("memcheck_oob_write_defaults.txt", &r);
    assert_true(r.found);
    assert_int_equal(r.errors, 2);
    assert_true(strncmp(r.finding, "Invalid __global__ write", 23) == 0);
    assert_null(strstr(r.finding, "Program hit"));
}

static void test_parse_clean(void **state)
{
    (void)state;
    const char *clean[] = {"memcheck_clean.txt", "memcheck_guard_zone_read.txt",
                           "memcheck_program_failed.txt", "racecheck_clean.txt",
                           "initcheck_clean.txt"};
    for (size_t i = 0; i < HK_ARRAY_LEN(clean); i++) {
        sanitize_report r;
        parse(clean[i], &r);
        assert_false(r.found);
        assert_int_equal(r.errors, 0);
        assert_string_equal(r.finding, "");
        assert_string_equal(r.tool_error, "");
    }
    sanitize_report r;
    sanitize_parse(NULL, &r);
    assert_false(r.found);
    assert_int_equal(r.errors, -1);
}

static void test_parse_racecheck(void **state)
{
    (void)state;
    sanitize_report r;
    parse("racecheck_error.txt", &r);
    assert_true(r.found);
    assert_false(r.warning);
    assert_int_equal(r.errors, 1);
    assert_string_equal(
        r.finding,
        "Error: Race reported between Read access at race_tree(const float *, float *, int)"
        "+0x190 in probe.cu:107; and Write access at race_tree(const float *, float *, int)"
        "+0x130 in probe.cu:104 [2221312 hazards]; and Write access at race_tree(const float "
        "*, float *, int)+0x1b0 in probe.cu:107 [2057332 hazards]");
    assert_string_equal(r.location, "probe.cu:107");
    parse("racecheck_error_init.txt", &r);
    assert_true(r.found);
    assert_string_equal(r.location, "probe.cu:53");
    /* a warp-synchronous tail without __syncwarp: the tool says Warning, counts 5 */
    parse("racecheck_warning.txt", &r);
    assert_true(r.found);
    assert_true(r.warning);
    assert_int_equal(r.errors, 5);
    assert_true(strncmp(r.finding, "Warning: Race reported between Read access at "
                                   "race_warp_tail", 60) == 0);
    assert_string_equal(r.location, "probe.cu:83");
    assert_int_equal(r.shown, 1);
    assert_string_equal(r.sites, "probe.cu:83\nprobe.cu:82\n");
    /* two reports: the first is quoted, every one's lines are kept */
    parse("racecheck_inherited_and_own.txt", &r);
    assert_int_equal(r.shown, 2);
    assert_int_equal(r.errors, 2);
    assert_false(r.sites_cut);
    assert_string_equal(r.sites, "probe.cu:83\nprobe.cu:82\nprobe.cu:40\nprobe.cu:39\n");
    assert_null(strstr(r.finding, "probe.cu:40"));
    /* the hazard report's form (modelled) */
    parse("racecheck_hazard_mode.txt", &r);
    assert_true(r.found);
    assert_int_equal(r.errors, 1);
    assert_string_equal(r.finding,
                        "Error: Potential RAW hazard detected at __shared__ 0x100 in block "
                        "(0,0,0) :; Write Thread (64,0,0) at reduce_sum(const float *, float *, "
                        "int)+0x130 in kernel.cu:8; Read Thread (0,0,0) at reduce_sum(const "
                        "float *, float *, int)+0x1a0 in kernel.cu:11; Current Value : 0, "
                        "Incoming Value : 1065353216");
    assert_string_equal(r.location, "kernel.cu:8");
}

static void test_parse_initcheck(void **state)
{
    (void)state;
    sanitize_report r;
    parse("initcheck_uninit_timed_out.txt", &r);
    assert_true(r.found);
    assert_int_equal(r.errors, -1); /* cut before its summary */
    assert_string_equal(r.finding,
                        "Uninitialized __global__ memory read of size 4 bytes; "
                        "at read_scratch(const float *, const float *, float *, int)+0xd0 in "
                        "probe.cu:117; by thread (64,0,0) in block (8,0,0); "
                        "Address 0x7f2c55002100");
    assert_string_equal(r.location, "probe.cu:117");
}

static void test_parse_other_forms(void **state)
{
    (void)state;
    sanitize_report r;
    parse("memcheck_cuda11_format.txt", &r);
    assert_true(r.found);
    assert_string_equal(r.finding,
                        "Invalid __shared__ read of size 4 bytes; at 0x578 in "
                        "/home/user/kernels/tiled.cu:120:tiled_transpose(const float *, float *, "
                        "int); by thread (5,3,0) in block (2,0,0); Address 0x4c00 is out of "
                        "bounds");
    assert_string_equal(r.location, "tiled.cu:120");
    parse("tool_usage_error.txt", &r);
    assert_false(r.found);
    assert_string_equal(r.tool_error, "unrecognised option '--no-such-flag'");
    parse("tool_internal_error.txt", &r);
    assert_false(r.found);
    assert_string_equal(r.tool_error,
                        "Error: Target application terminated before first instrumented API call");
    /* a line that looks like a finding, under a summary of none, is no finding */
    sanitize_parse("========= COMPUTE-SANITIZER\n========= Something odd\n"
                   "========= ERROR SUMMARY: 0 errors\n", &r);
    assert_int_equal(r.errors, 0);
    sanitize_tool_result j;
    sanitize_judge(SANITIZE_MEMCHECK, 0, 0, false, 1000,
                   "========= COMPUTE-SANITIZER\n========= Something odd\n"
                   "========= ERROR SUMMARY: 0 errors\n", &j);
    assert_int_equal(j.status, SANITIZE_CLEAN);
}

/* ---- judging one run ---- */

static void test_judge(void **state)
{
    (void)state;
    sanitize_tool_result j;
    sanitize_judge(SANITIZE_MEMCHECK, 86, 0, false, 300000, slurp("memcheck_oob_read.txt"), &j);
    assert_int_equal(j.status, SANITIZE_FOUND);
    assert_int_equal(j.reason, MEASURE_OUT_OF_BOUNDS);
    assert_true(strncmp(j.text, "Invalid __global__ read of size 16 bytes; at saxpy_tail", 54) == 0);

    sanitize_judge(SANITIZE_RACECHECK, 86, 0, false, 300000, slurp("racecheck_error.txt"), &j);
    assert_int_equal(j.status, SANITIZE_FOUND);
    assert_int_equal(j.reason, MEASURE_RACE);
    sanitize_judge(SANITIZE_RACECHECK, 86, 0, false, 300000, slurp("racecheck_warning.txt"), &j);
    assert_int_equal(j.status, SANITIZE_FOUND);
    assert_int_equal(j.reason, MEASURE_RACE);
    assert_true(strncmp(j.text, "Warning: Race reported", 22) == 0);
    assert_false(j.all_seen); /* 1 printed of 5 (--print-limit 1) */
    assert_string_equal(j.sites, "probe.cu:83\nprobe.cu:82\n");
    sanitize_judge(SANITIZE_RACECHECK, 86, 0, false, 300000, slurp("racecheck_warning_all.txt"),
                   &j);
    assert_true(j.all_seen);

    /* memcheck counting more errors than it printed: the others are unseen */
    sanitize_judge(SANITIZE_MEMCHECK, 86, 0, false, 300000, slurp("memcheck_oob_read.txt"), &j);
    assert_true(j.all_seen);
    static const char more[] =
        "========= COMPUTE-SANITIZER\n"
        "========= Invalid __global__ read of size 4 bytes\n"
        "=========     at k(float *)+0x90 in kernel.cu:7\n"
        "=========     by thread (0,0,0) in block (0,0,0)\n"
        "========= \n"
        "========= ERROR SUMMARY: 3 errors\n";
    sanitize_judge(SANITIZE_MEMCHECK, 86, 0, false, 300000, more, &j);
    assert_int_equal(j.status, SANITIZE_FOUND);
    assert_int_equal(j.shown, 1);
    assert_false(j.all_seen);
    /* cut at the time limit: not all seen either */
    sanitize_judge(SANITIZE_INITCHECK, -1, 9, true, 60000, slurp("initcheck_uninit_timed_out.txt"),
                   &j);
    assert_false(j.all_seen);

    /* printed before the time limit: still a finding */
    sanitize_judge(SANITIZE_INITCHECK, -1, 9, true, 60000, slurp("initcheck_uninit_timed_out.txt"),
                   &j);
    assert_int_equal(j.status, SANITIZE_FOUND);
    assert_int_equal(j.reason, MEASURE_UNINITIALIZED);
    assert_non_null(strstr(j.text, "before the run was cut at its time limit"));

    /* the program failed by itself under the tool: its own reason, its message */
    sanitize_judge(SANITIZE_MEMCHECK, 3, 0, false, 300000, slurp("memcheck_program_failed.txt"), &j);
    assert_int_equal(j.status, SANITIZE_FAILED);
    assert_int_equal(j.reason, MEASURE_CUDA_ERROR);
    assert_string_equal(j.text, "the program exited 3 (cuda_error) under the tool without a "
                                "finding: pretend failure");
    sanitize_judge(SANITIZE_RACECHECK, 6, 0, false, 300000,
                   "========= COMPUTE-SANITIZER\n{\"error\":\"out_of_bounds\",\"message\":"
                   "\"write outside buffer 'y'\"}\n========= RACECHECK SUMMARY: 0 hazards "
                   "displayed (0 errors, 0 warnings)\n",
                   &j);
    assert_int_equal(j.status, SANITIZE_FAILED);
    assert_int_equal(j.reason, MEASURE_OUT_OF_BOUNDS);

    /* exit 86 with nothing this parser knows: still found, the tool's first lines quoted */
    sanitize_judge(SANITIZE_RACECHECK, 86, 0, false, 300000,
                   "========= COMPUTE-SANITIZER\n========= \n"
                   "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 1 warning)\n", &j);
    assert_int_equal(j.status, SANITIZE_FOUND);
    assert_int_equal(j.reason, MEASURE_RACE);
    assert_string_equal(j.text, "exit status 86 (errors found): RACECHECK SUMMARY: 0 hazards "
                                "displayed (0 errors, 1 warning)");

    /* not checked: the tool's own failures, the program refusing to start, a signal */
    sanitize_judge(SANITIZE_MEMCHECK, 255, 0, false, 300000, slurp("tool_usage_error.txt"), &j);
    assert_int_equal(j.status, SANITIZE_NOT_CHECKED);
    assert_int_equal(j.reason, MEASURE_OK);
    assert_string_equal(j.text, "the tool failed: unrecognised option '--no-such-flag'");
    assert_false(j.incomplete); /* the tool's doing, not the candidate's */
    sanitize_judge(SANITIZE_MEMCHECK, 1, 0, false, 300000, slurp("tool_internal_error.txt"), &j);
    assert_int_equal(j.status, SANITIZE_NOT_CHECKED);
    sanitize_judge(SANITIZE_MEMCHECK, 8, 0, false, 300000,
                   "{\"error\":\"no_gpu\",\"message\":\"no CUDA device\"}\n", &j);
    assert_int_equal(j.status, SANITIZE_NOT_CHECKED);
    assert_non_null(strstr(j.text, "no_gpu"));
    assert_false(j.incomplete);
    /* the tool could not launch the program (seen on the H200 when the namespace
     * sandbox's loopback was down): not a memory error */
    sanitize_judge(SANITIZE_MEMCHECK, 1, 0, false, 300000,
                   "========= COMPUTE-SANITIZER\n========= Error launching target app.\n", &j);
    assert_int_equal(j.status, SANITIZE_NOT_CHECKED);
    assert_int_equal(j.reason, MEASURE_OK);
    assert_string_equal(j.text, "the tool failed: Error launching target app.");
    assert_false(j.incomplete);
    sanitize_judge(SANITIZE_MEMCHECK, -1, 9, false, 300000, "", &j);
    assert_int_equal(j.status, SANITIZE_NOT_CHECKED);
    assert_true(j.incomplete); /* ended by a signal: the runner's memory or CPU limit */

    sanitize_judge(SANITIZE_RACECHECK, -1, 15, true, 120000, "========= COMPUTE-SANITIZER\n", &j);
    assert_int_equal(j.status, SANITIZE_TIMED_OUT);
    assert_string_equal(j.text, "timed out after 120 s without a finding");
    assert_true(j.incomplete);

    sanitize_judge(SANITIZE_INITCHECK, 0, 0, false, 300000, slurp("initcheck_clean.txt"), &j);
    assert_int_equal(j.status, SANITIZE_CLEAN);
    assert_string_equal(j.text, "");
}

static void test_flags(void **state)
{
    (void)state;
    /* the exit status separates "found" from "the program failed" */
    for (int t = 0; t < SANITIZE_N_TOOLS; t++) {
        const char *const *f = sanitize_tool_flags((enum sanitize_tool)t);
        bool tool = false, code = false, check = false, limit = false;
        for (size_t i = 0; f[i]; i++) {
            tool |= !strcmp(f[i], "--tool") && !strcmp(f[i + 1], sanitize_tool_name(t));
            code |= !strcmp(f[i], "--error-exitcode") && !strcmp(f[i + 1], "86");
            check |= !strcmp(f[i], "--check-exit-code") && !strcmp(f[i + 1], "no");
            limit |= !strcmp(f[i], "--print-limit") && !strcmp(f[i + 1], "1");
        }
        assert_true(tool && code && check && limit);
    }
    assert_string_equal(sanitize_tool_name(SANITIZE_INITCHECK), "initcheck");
    assert_int_equal(sanitize_tool_reason(SANITIZE_MEMCHECK), MEASURE_OUT_OF_BOUNDS);
    assert_int_equal(sanitize_tool_reason(SANITIZE_RACECHECK), MEASURE_RACE);
    assert_int_equal(sanitize_tool_reason(SANITIZE_INITCHECK), MEASURE_UNINITIALIZED);
}

/* ---- which candidates ---- */

static void test_wanted(void **state)
{
    (void)state;
    assert_true(sanitize_wanted(true, false, 1.1, false));   /* the accepted best, always */
    assert_true(sanitize_wanted(true, false, NAN, false));
    assert_true(sanitize_wanted(false, false, 2.01, false)); /* a claim over 2x */
    assert_false(sanitize_wanted(false, false, 2.0, false));
    assert_false(sanitize_wanted(false, false, 1.5, false));
    assert_false(sanitize_wanted(false, false, NAN, false));
    assert_true(sanitize_wanted(false, true, 1.0, false));   /* --sanitize */
    assert_false(sanitize_wanted(true, true, 3.0, true));    /* never twice */
}

/* ---- memcheck's findings by signature (issue 12: an original with more findings than the
 * print limit, Rodinia's srad1) ---- */

/* The recorded reports: kind, size, the nearest allocation's size and the offset from it
 * (the two addresses printed, subtracted), whatever the addresses themselves. */
static void test_sigs_recorded(void **state)
{
    (void)state;
    sanitize_sigs s;
    assert_int_equal(sanitize_sigs_parse(slurp("memcheck_oob_read.txt"), &s), HK_OK);
    assert_int_equal(s.printed, 1);
    assert_int_equal(s.errors, 1);
    assert_int_equal(s.unprinted, 0);
    assert_int_equal(s.unsigned_n, 0);
    assert_true(sanitize_sigs_complete(&s));
    assert_int_equal(s.n, 1);
    assert_string_equal(s.kinds[0], "Invalid __global__ read");
    const sanitize_sig *g = NULL;
    for (size_t i = 0; i < s.cap; i++)
        if (s.slots[i].count)
            g = &s.slots[i];
    assert_non_null(g);
    assert_int_equal(g->size, 16);
    assert_int_equal(g->alloc_size, 4000012);
    assert_int_equal(g->offset, 0x7fd682bd0900LL - 0x7fd682800000LL); /* 4000000 */
    assert_int_equal(g->count, 1);
    /* the first finding on one line, backtrace left out */
    assert_non_null(strstr(s.first, "Invalid __global__ read of size 16 bytes; at saxpy_tail("));
    assert_null(strstr(s.first, "Host Frame"));
    sanitize_sigs b;
    assert_int_equal(sanitize_sigs_parse(slurp("memcheck_oob_write.txt"), &b), HK_OK);
    char why[512];
    /* a write one element past the end is not that read */
    assert_false(sanitize_sigs_within(&s, &b, why, sizeof why));
    assert_non_null(strstr(why, "a 4-byte Invalid __global__ write 1 bytes after the end of an "
                                "allocation of 4000012 bytes, which the original kernel does "
                                "not make"));
    assert_true(sanitize_sigs_within(&s, &s, why, sizeof why));
    sanitize_sigs_free(&b);
    /* a shared-memory report names no allocation: no signature, never credited by it */
    assert_int_equal(sanitize_sigs_parse(slurp("memcheck_cuda11_format.txt"), &b), HK_OK);
    assert_int_equal(b.printed, 1);
    assert_int_equal(b.unsigned_n, 1);
    assert_false(sanitize_sigs_complete(&b));
    assert_false(sanitize_sigs_within(&b, &b, why, sizeof why));
    sanitize_sigs_free(&b);
    /* no finding: complete and empty */
    assert_int_equal(sanitize_sigs_parse(slurp("memcheck_clean.txt"), &b), HK_OK);
    assert_true(sanitize_sigs_complete(&b));
    assert_int_equal(b.n, 0);
    assert_true(sanitize_sigs_within(&s, &b, why, sizeof why));
    sanitize_sigs_free(&b);
    sanitize_sigs_free(&s);
}

/* srad1's kind of finding, modelled after session 26's account (Rodinia's index_n at the
 * first block row, index_s at the last: the row above the image and the row below it): a
 * COLS x ROWS float image, the border threads reading J[-COLS + x] and J[ROWS * COLS + x],
 * from two statements each reading one of two buffers of the image's size (so every
 * signature occurs twice). The tool's text for a program whose allocations start at base,
 * the threads of each border row in the order perm gives (a thread mapping), at source line
 * line: the original with every finding, or a candidate's variation of it. */
enum { COLS = 12288, ROWS = 512, SRAD_FINDINGS = 4 * COLS }; /* 49152 */

typedef enum {
    SRAD_SAME = 0,     /* the original's accesses */
    SRAD_OWN_EXTRA,    /* and one read of its own, 4 bytes further below the image */
    SRAD_OWN_SWAPPED,  /* one of the original's reads left out, one of its own instead */
    SRAD_TWICE,        /* one of the original's reads left out, another made once more */
    SRAD_FEWER,        /* the bottom border read by one buffer only */
    SRAD_VECTOR,       /* the top border read 16 bytes at a time (a vectorized candidate) */
} srad_variant;

static char *srad_text(unsigned long long base, int reversed, int line, srad_variant v,
                       long print_limit)
{
    const unsigned long long bytes = 4ull * COLS * ROWS, gap = 1ull << 26;
    size_t cap = (size_t)(SRAD_FINDINGS + 8) * 400, n = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    n += (size_t)snprintf(t + n, cap - n, "========= COMPUTE-SANITIZER\n");
    long count = 0, printed = 0;
    for (int buf = 0; buf < 2; buf++)
        for (int row = 0; row < 2; row++)
            for (int k = 0; k < COLS; k += (v == SRAD_VECTOR && row == 0 ? 4 : 1)) {
                int x = reversed ? COLS - 1 - k - (v == SRAD_VECTOR && row == 0 ? 3 : 0) : k;
                if (v == SRAD_FEWER && buf == 1 && row == 1)
                    continue;
                long long off = row == 0 ? -4ll * (COLS - x) : (long long)bytes + 4ll * x;
                if ((v == SRAD_OWN_SWAPPED || v == SRAD_TWICE) && buf == 1 && row == 1 && x == 7)
                    off = v == SRAD_OWN_SWAPPED ? (long long)bytes + 4ll * COLS + 64 /* own */
                                                : (long long)bytes + 4ll * 8; /* x = 8 again */
                unsigned size = v == SRAD_VECTOR && row == 0 ? 16 : 4;
                unsigned long long alloc = base + (unsigned long long)buf * (bytes + gap);
                count++;
                if (print_limit && printed >= print_limit)
                    continue;
                printed++;
                n += (size_t)snprintf(
                    t + n, cap - n,
                    "========= Invalid __global__ read of size %u bytes\n"
                    "=========     at srad_cuda_1(float *, float *, float *, float *, float *, "
                    "float *, int, int, float)+0x%x in srad1.cu:%d\n"
                    "=========     by thread (%d,%d,0) in block (%d,%d,0)\n"
                    "=========     Access to 0x%llx is out of bounds\n"
                    "=========     and is %llu bytes %s the nearest allocation at 0x%llx of size "
                    "%llu bytes\n=========\n",
                    size, 0x2a0 + 0x10 * buf, line + buf, x % 16, row ? 15 : 0, x / 16,
                    row ? ROWS / 16 - 1 : 0, alloc + (unsigned long long)off,
                    off < 0 ? (unsigned long long)-off
                            : (unsigned long long)off - bytes + 1, /* the tool's "1 bytes after" */
                    off < 0 ? "before" : "after", alloc, bytes);
            }
    if (v == SRAD_OWN_EXTRA) {
        count++;
        if (!print_limit || printed < print_limit) {
            printed++;
            n += (size_t)snprintf(t + n, cap - n,
                                  "========= Invalid __global__ read of size 4 bytes\n"
                                  "=========     at srad_cuda_1(...)+0x400 in srad1.cu:%d\n"
                                  "=========     by thread (0,0,0) in block (0,0,0)\n"
                                  "=========     Access to 0x%llx is out of bounds\n"
                                  "=========     and is 4100 bytes after the nearest allocation "
                                  "at 0x%llx of size %llu bytes\n=========\n",
                                  line + 9, base + bytes + 4100 - 1, base, bytes);
        }
    }
    n += (size_t)snprintf(t + n, cap - n, "========= ERROR SUMMARY: %ld errors\n", count);
    if (printed < count)
        n += (size_t)snprintf(t + n, cap - n,
                              "========= ERROR SUMMARY: %ld errors were not printed. Use "
                              "--print-limit option to adjust the number of printed errors\n",
                              count - printed);
    assert_true(n < cap);
    return t;
}

static void sigs_of(const char *text, sanitize_sigs *s)
{
    assert_int_equal(sanitize_sigs_parse(text, s), HK_OK);
}

/* The rule on srad1's kind of original: the same accesses under another thread mapping, other
 * addresses and other source lines are the original's; the cheat (an out-of-bounds read of
 * its own beside the original's 49152) is not, nor the same count with one access swapped
 * for its own or made twice; fewer is; unseen findings on either side never are. */
static void test_sigs_rule(void **state)
{
    (void)state;
    char why[512];
    sanitize_sigs o, c;
    char *t = srad_text(0x7f0000000000ull, 0, 57, SRAD_SAME, 0);
    sigs_of(t, &o);
    free(t);
    assert_int_equal(o.errors, SRAD_FINDINGS);
    assert_int_equal(o.printed, SRAD_FINDINGS);
    assert_true(sanitize_sigs_complete(&o));
    assert_int_equal(o.n, 2 * COLS);   /* two buffers of one size: each signature twice */
    /* the parser's count: "were not printed" adds no errors */
    t = srad_text(0x7f0000000000ull, 0, 57, SRAD_SAME, 64);
    sanitize_report rep;
    sanitize_parse(t, &rep);
    assert_int_equal(rep.errors, SRAD_FINDINGS);
    assert_int_equal(rep.shown, 64);
    sigs_of(t, &c);
    free(t);
    assert_int_equal(c.printed, 64);
    assert_int_equal(c.unprinted, SRAD_FINDINGS - 64);
    assert_false(sanitize_sigs_complete(&c));
    /* an original seen only in part credits nothing, not even its own findings */
    assert_false(sanitize_sigs_within(&c, &o, why, sizeof why));
    assert_non_null(strstr(why, "the original kernel's findings were not all seen"));
    sanitize_sigs_free(&c);

    /* the same accesses: other addresses, the other thread order, other lines */
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_SAME, 0);
    sigs_of(t, &c);
    free(t);
    assert_true(sanitize_sigs_within(&o, &c, why, sizeof why));
    sanitize_sigs_free(&c);
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_FEWER, 0);
    sigs_of(t, &c);
    free(t);
    assert_int_equal(c.errors, 3 * COLS);
    assert_true(sanitize_sigs_within(&o, &c, why, sizeof why));
    sanitize_sigs_free(&c);

    /* the cheat: its own out-of-bounds read beside the original's 49152 */
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_OWN_EXTRA, 0);
    sigs_of(t, &c);
    free(t);
    assert_true(sanitize_sigs_complete(&c));
    assert_false(sanitize_sigs_within(&o, &c, why, sizeof why));
    assert_string_equal(why, "49153 findings, more than the original kernel's 49152");
    sanitize_sigs_free(&c);
    /* the same, judged at the print limit the candidate gets (the original's count + 1):
     * all printed, still one too many */
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_OWN_EXTRA, SRAD_FINDINGS + 1);
    sigs_of(t, &c);
    free(t);
    assert_false(sanitize_sigs_within(&o, &c, why, sizeof why));
    sanitize_sigs_free(&c);
    /* the count kept: one of the original's reads left out for one of its own */
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_OWN_SWAPPED, 0);
    sigs_of(t, &c);
    free(t);
    assert_int_equal(c.errors, SRAD_FINDINGS);
    assert_false(sanitize_sigs_within(&o, &c, why, sizeof why));
    assert_non_null(strstr(why, "a 4-byte Invalid __global__ read 49217 bytes after the end of "
                                "an allocation of 25165824 bytes, which the original kernel "
                                "does not make"));
    sanitize_sigs_free(&c);
    /* ... or for one of the original's made once more than the original makes it */
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_TWICE, 0);
    sigs_of(t, &c);
    free(t);
    assert_false(sanitize_sigs_within(&o, &c, why, sizeof why));
    assert_non_null(strstr(why, "3 times, where the original kernel makes it 2 times"));
    sanitize_sigs_free(&c);
    /* a vectorized read of the same bytes is another access (not credited: a known limit) */
    t = srad_text(0x7fe126800000ull, 0, 40, SRAD_VECTOR, 0);
    sigs_of(t, &c);
    free(t);
    assert_false(sanitize_sigs_within(&o, &c, why, sizeof why));
    assert_non_null(strstr(why, "16-byte"));
    sanitize_sigs_free(&c);
    /* a candidate cut short (no summary) is not all seen */
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_FEWER, 0);
    *strstr(t, "========= ERROR SUMMARY") = '\0';
    sigs_of(t, &c);
    free(t);
    assert_int_equal(c.errors, -1);
    assert_false(sanitize_sigs_within(&o, &c, why, sizeof why));
    sanitize_sigs_free(&c);
    sanitize_sigs_free(&o);
}


/* ---- the whole sequence, through the runner ---- */

typedef struct {
    char dir[256];
    char bin[300];
    char log[320];
    spec *sp;
    measure_opts o;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/hk-test-sanitize-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->bin, sizeof f->bin, "%s/bin", f->dir);
    snprintf(f->log, sizeof f->log, "%s/tool.log", f->dir);
    if (measure_mkdirs(f->bin))
        return -1;
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cc -O1 -o %s/ok %s/episode/fake_harness.c -lm && cp %s/ok %s/cudaerr && "
             "cp %s/ok %s/oob",
             f->bin, HK_TEST_DATA, f->bin, f->bin, f->bin, f->bin);
    if (system(cmd) != 0)
        return -1;
    spec_diags d = {0};
    if (spec_load(HK_TEST_DATA "/episode/tiny.bench.json", &f->sp, &d) != HK_OK)
        return -1;
    spec_diags_free(&d);
    f->o.spec = f->sp;
    f->o.isolation = RUNNER_ISO_NONE;
    setenv("HK_GPU_LOCK", "off", 1);
    setenv("FAKE_SANITIZER_LOG", f->log, 1);
    unsetenv("FAKE_SANITIZER_MEMCHECK");
    unsetenv("FAKE_SANITIZER_RACECHECK");
    unsetenv("FAKE_SANITIZER_INITCHECK");
    unsetenv("FAKE_SANITIZER_SLEEP");
    unsetenv("FAKE_SANITIZER_STDOUT");
    unsetenv("HK_COMPUTE_SANITIZER");
    unsetenv("HK_SANITIZE_TIMEOUT_S");
    unsetenv("HK_SANITIZE_TIMED_S");
    unsetenv("FAKE_SANITIZER_AT_SIZE");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    spec_free(f->sp);
    measure_rmtree(f->dir);
    free(f);
    return 0;
}

static void run(fixture *f, const char *prog, const sanitize_opts *so, sanitize_result *r)
{
    char exe[400];
    snprintf(exe, sizeof exe, "%s/%s", f->bin, prog);
    measure_prog p = {.exe = exe};
    unlink(f->log);
    assert_int_equal(sanitize_candidate(&f->o, so, &p, r), HK_OK);
    assert_non_null(r->note);
}

static char *tool_log(fixture *f)
{
    static char buf[8192];
    FILE *fp = fopen(f->log, "r");
    buf[0] = '\0';
    if (fp) {
        size_t n = fread(buf, 1, sizeof buf - 1, fp);
        buf[n] = '\0';
        fclose(fp);
    }
    return buf;
}

static void test_run_clean(void **state)
{
    fixture *f = *state;
    sanitize_opts so = {.tool = FAKE_TOOL};
    sanitize_result r;
    run(f, "ok", &so, &r);
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    assert_int_equal(r.reason, MEASURE_OK);
    assert_null(r.details);
    /* the smallest size of the spec (1000 elements), its first distribution, seed 1 + 2000 */
    assert_int_equal(r.size, 0);
    assert_int_equal(r.dist, 0);
    assert_int_equal(r.seed, 2001);
    assert_int_equal(r.elements, 1000);
    assert_string_equal(r.note, "memory safety: checked by compute-sanitizer (memcheck, "
                                "racecheck, initcheck: no findings; run mode at size 0 (1000 "
                                "elements in the largest buffer), seed 2001)");
    for (int t = 0; t < SANITIZE_N_TOOLS; t++)
        assert_int_equal(r.tools[t].status, SANITIZE_CLEAN);
    /* the command lines: each tool's flags, then the program in run mode, no output file,
     * and the request to declare the buffers to the tool (the same layout as every run) */
    const char *log = tool_log(f);
    assert_non_null(strstr(log, "memcheck --tool memcheck --leak-check no "
                                "--report-api-errors no --error-exitcode 86 --check-exit-code "
                                "no --print-limit 1 "));
    assert_non_null(strstr(log, "racecheck --tool racecheck --error-exitcode 86 "
                                "--check-exit-code no --print-limit 1 "));
    assert_non_null(strstr(log, "initcheck --tool initcheck --error-exitcode 86 "));
    assert_non_null(strstr(log, "/ok --mode run --size 0 --seed 2001 --dist 0 "
                                "HK_TOOL_REGIONS=1\n"));
    assert_null(strstr(log, "--out"));
    json_t *j = sanitize_result_json(&r);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "outcome")), "passed");
    assert_int_equal(json_array_size(json_object_get(j, "tools")), 3);
    json_decref(j);
    sanitize_result_clear(&r);
}

/* The pass at the timed size (sanitize_opts.timed): the tools run at the size given, one
 * run-mode launch, under $HK_SANITIZE_TIMED_S; folded into the smallest size's result, a
 * finding there rejects with the size named, a clean pass adds to the note, a timeout there
 * takes a claim over 2x's credit away. */
static void test_run_timed_size(void **state)
{
    fixture *f = *state;
    sanitize_opts so = {.tool = FAKE_TOOL};
    sanitize_result r, t;
    run(f, "ok", &so, &r);
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    assert_true(sanitize_timed_wanted(&r, 1));
    assert_false(sanitize_timed_wanted(&r, 0)); /* the smallest size is the timed one */
    sanitize_opts to = {.tool = FAKE_TOOL, .timed = true, .size = 1};
    run(f, "ok", &to, &t);
    assert_true(t.timed);
    assert_int_equal(t.size, 1);
    assert_int_equal(t.elements, 4099);
    assert_non_null(strstr(tool_log(f), "/ok --mode run --size 1 --seed 2001 --dist 0 "
                                        "HK_TOOL_REGIONS=1\n"));
    assert_int_equal(sanitize_result_add_timed(&r, &t), HK_OK);
    assert_null(t.note); /* taken */
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    assert_false(sanitize_timed_wanted(&r, 1)); /* once */
    assert_string_equal(r.note, "memory safety: checked by compute-sanitizer (memcheck, "
                                "racecheck, initcheck: no findings; run mode at size 0 (1000 "
                                "elements in the largest buffer), seed 2001); at the timed size, "
                                "one launch: checked by compute-sanitizer (memcheck, racecheck, "
                                "initcheck: no findings; run mode at size 1 (4099 elements in "
                                "the largest buffer), seed 2001)");
    json_t *j = sanitize_result_json(&r);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "timed"), "size")), 1);
    json_decref(j);
    sanitize_result_clear(&r);
    /* a race at the timed size only (the fake's fixture at --size 1) */
    setenv("FAKE_SANITIZER_RACECHECK", HK_TEST_DATA "/sanitize/racecheck_error.txt", 1);
    setenv("FAKE_SANITIZER_AT_SIZE", "1", 1);
    run(f, "ok", &so, &r);
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    run(f, "ok", &to, &t);
    assert_int_equal(t.outcome, SANITIZE_REJECTED);
    assert_int_equal(sanitize_result_add_timed(&r, &t), HK_OK);
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_RACE);
    assert_true(strncmp(r.details, "compute-sanitizer racecheck at the timed size 1: Error: Race "
                                   "reported between", 77) == 0);
    assert_true(strncmp(r.note, "memory safety: rejected (race): compute-sanitizer racecheck at "
                                "the timed size 1: ", 81) == 0);
    sanitize_result_clear(&r);
    unsetenv("FAKE_SANITIZER_RACECHECK");
    unsetenv("FAKE_SANITIZER_AT_SIZE");
    /* past $HK_SANITIZE_TIMED_S at the timed size: incomplete, no credit over 2x */
    setenv("HK_SANITIZE_TIMED_S", "1", 1);
    setenv("FAKE_SANITIZER_SLEEP", "memcheck", 1);
    run(f, "ok", &to, &t);
    unsetenv("FAKE_SANITIZER_SLEEP");
    unsetenv("HK_SANITIZE_TIMED_S");
    assert_int_equal(t.tools[SANITIZE_MEMCHECK].status, SANITIZE_TIMED_OUT);
    run(f, "ok", &so, &r);
    assert_int_equal(sanitize_result_add_timed(&r, &t), HK_OK);
    assert_int_equal(r.outcome, SANITIZE_UNCHECKED);
    assert_true(r.incomplete);
    assert_false(sanitize_credit_allowed(&r, 3.0));
    assert_true(sanitize_credit_allowed(&r, 1.5));
    char *why = sanitize_credit_note(&r, 3.0);
    assert_non_null(why);
    assert_non_null(strstr(why, "(compute-sanitizer memcheck: timed out after 1 s without a "
                                "finding)"));
    hk_free(why);
    assert_non_null(strstr(r.note, "; at the timed size, one launch: not fully checked (memcheck "
                                   "not checked: timed out after 1 s"));
    sanitize_result_clear(&r);
}

/* A launcher (a program given the candidate's image with --module) is run by the tool as a
 * copy in the image's directory, removed afterwards: in the namespace sandbox the real tool
 * could not launch it where it lives (under the user's 0700 home) and launched such a copy
 * (H200, session 23, tests/gpu/sanitizer_variants.sh). Under every tool, in every sandbox. */
static void test_run_launcher_copied(void **state)
{
    fixture *f = *state;
    char cand[400], image[420], entry[440], exe[400], want[1024];
    snprintf(cand, sizeof cand, "%s/cand", f->dir);
    assert_int_equal(measure_mkdirs(cand), HK_OK);
    snprintf(image, sizeof image, "%s/kernel.cubin", cand);
    snprintf(entry, sizeof entry, "%s.fn", image);
    FILE *fp = fopen(image, "w");
    assert_non_null(fp);
    fputs("not an image: the fake harness never loads it", fp);
    fclose(fp);
    fp = fopen(entry, "w");
    assert_non_null(fp);
    fputs("_Z6kernelPf", fp);
    fclose(fp);
    snprintf(exe, sizeof exe, "%s/ok", f->bin);
    measure_prog p = {.exe = exe, .module = image};
    sanitize_opts so = {.tool = FAKE_TOOL};
    sanitize_result r;
    unlink(f->log);
    assert_int_equal(sanitize_candidate(&f->o, &so, &p, &r), HK_OK);
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    const char *log = tool_log(f);
    snprintf(want, sizeof want, " %s/hk-sanitize-launcher --mode run --size 0 --seed 2001 --dist 0 "
             "--module %s --function _Z6kernelPf", cand, image);
    for (int t = 0; t < SANITIZE_N_TOOLS; t++) {
        char line[600];
        snprintf(line, sizeof line, "%s --tool %s ", tool_names_for_test[t], tool_names_for_test[t]);
        const char *at = strstr(log, line);
        assert_non_null(at);
        const char *eol = strchr(at, '\n');
        assert_non_null(eol);
        const char *found = strstr(at, want);
        assert_true(found && found < eol);
    }
    snprintf(want, sizeof want, " %s --mode", exe);
    assert_null(strstr(log, want)); /* never the launcher where it lives */
    snprintf(want, sizeof want, "%s/hk-sanitize-launcher", cand);
    assert_int_equal(access(want, F_OK), -1);
    assert_int_equal(access(exe, X_OK), 0); /* the original is left as it was */
    sanitize_result_clear(&r);
}

/* A tool that cannot launch its target inside the namespace sandbox (seen on the H200: no
 * bwrap there) gets one more try in the network-only sandbox, and the note says so. */
static void test_run_net_only_fallback(void **state)
{
    fixture *f = *state;
    if (!runner_isolation_works(RUNNER_ISO_NAMESPACES)) {
        print_message("namespace sandbox not available here\n");
        skip();
    }
    f->o.isolation = RUNNER_ISO_NAMESPACES;
    setenv("FAKE_SANITIZER_NO_PIDNS", "1", 1);
    sanitize_opts so = {.tool = FAKE_TOOL};
    sanitize_result r;
    run(f, "ok", &so, &r);
    unsetenv("FAKE_SANITIZER_NO_PIDNS");
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    for (int t = 0; t < SANITIZE_N_TOOLS; t++) {
        assert_int_equal(r.tools[t].status, SANITIZE_CLEAN);
        assert_true(r.tools[t].net_only);
    }
    assert_non_null(strstr(r.note, "no findings"));
    assert_non_null(strstr(r.note, "in the network-only sandbox: the tool could not launch its "
                                   "target in the namespace sandbox"));
    sanitize_result_clear(&r);

    /* without the failure, the namespace sandbox is kept and nothing is said */
    run(f, "ok", &so, &r);
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    assert_false(r.tools[0].net_only);
    assert_null(strstr(r.note, "network-only"));
    sanitize_result_clear(&r);
}

static void test_run_race(void **state)
{
    fixture *f = *state;
    setenv("FAKE_SANITIZER_RACECHECK", FIXTURES "/racecheck_error.txt", 1);
    sanitize_opts so = {.tool = FAKE_TOOL};
    sanitize_result r;
    run(f, "ok", &so, &r);
    unsetenv("FAKE_SANITIZER_RACECHECK");
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_RACE);
    assert_true(strncmp(r.details, "compute-sanitizer racecheck: Error: Race reported between "
                                   "Read access at race_tree(",
                        83) == 0);
    assert_int_equal(r.tools[SANITIZE_MEMCHECK].status, SANITIZE_CLEAN);
    assert_int_equal(r.tools[SANITIZE_RACECHECK].status, SANITIZE_FOUND);
    assert_int_equal(r.tools[SANITIZE_INITCHECK].status, SANITIZE_NOT_RUN);
    assert_null(strstr(tool_log(f), "initcheck"));
    assert_true(strncmp(r.note, "memory safety: rejected (race): compute-sanitizer racecheck: ",
                        61) == 0);
    sanitize_result_clear(&r);

    /* memcheck first: an out-of-bounds read ends it there */
    setenv("FAKE_SANITIZER_MEMCHECK", FIXTURES "/memcheck_oob_read.txt", 1);
    run(f, "ok", &so, &r);
    unsetenv("FAKE_SANITIZER_MEMCHECK");
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_OUT_OF_BOUNDS);
    assert_non_null(strstr(r.details, "Access to 0x7fd682bd0900 is out of bounds"));
    assert_int_equal(r.tools[SANITIZE_RACECHECK].status, SANITIZE_NOT_RUN);
    sanitize_result_clear(&r);

    setenv("FAKE_SANITIZER_INITCHECK", FIXTURES "/initcheck_uninit_timed_out.txt", 1);
    run(f, "ok", &so, &r);
    unsetenv("FAKE_SANITIZER_INITCHECK");
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_UNINITIALIZED);
    sanitize_result_clear(&r);
}

/* A candidate text of 90 lines whose lines 82 and 83 (where racecheck_warning.txt's race
 * is: a warp-synchronous tail without __syncwarp) are the given statements. */
static char *cand_text(const char *l82, const char *l83)
{
    static char buf[8192];
    size_t n = 0;
    for (int l = 1; l <= 90; l++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\n",
                              l == 82 ? l82 : l == 83 ? l83 : "    // the candidate's own line");
    return buf;
}

/* The original kernel's own finding: the baseline under every tool (all_tools), then a
 * candidate whose racecheck finding names only lines the baseline has word for word passes
 * (INHERITED, and initcheck still runs); a changed racing line, a racing line copied to
 * a new place too, or a baseline without the finding, rejects as before. */
static void test_run_inherited(void **state)
{
    fixture *f = *state;
    static const char base[] =
        "__global__ void reduce(const float *in, float *out)\n"
        "{\n"
        "    if (tid < 32) {\n"
        "        if (blockSize >= 4)  sdata[tid] += sdata[tid + 2];\n"
        "        if (blockSize >= 2)  sdata[tid] += sdata[tid + 1];\n"
        "    }\n"
        "}\n";
    setenv("FAKE_SANITIZER_RACECHECK", FIXTURES "/racecheck_warning_all.txt", 1);
    sanitize_opts bo = {.tool = FAKE_TOOL, .all_tools = true};
    sanitize_result b;
    run(f, "ok", &bo, &b);
    assert_int_equal(b.outcome, SANITIZE_REJECTED);
    assert_int_equal(b.tools[SANITIZE_RACECHECK].status, SANITIZE_FOUND);
    assert_int_equal(b.tools[SANITIZE_INITCHECK].status, SANITIZE_CLEAN); /* all tools ran */

    const char *same = cand_text("      if (blockSize >= 4)  sdata[tid] += sdata[tid + 2];",
                                 "if (blockSize >= 2)  sdata[tid] += sdata[tid + 1];   ");
    sanitize_opts io = {.tool = FAKE_TOOL, .baseline = &b, .base_text = base,
                        .base_len = sizeof base - 1, .cand_text = same,
                        .cand_len = strlen(same)};
    sanitize_result r;
    run(f, "ok", &io, &r);
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    assert_int_equal(r.reason, MEASURE_OK);
    assert_int_equal(r.tools[SANITIZE_RACECHECK].status, SANITIZE_INHERITED);
    assert_int_equal(r.tools[SANITIZE_INITCHECK].status, SANITIZE_CLEAN);
    assert_non_null(strstr(tool_log(f), "initcheck"));
    assert_non_null(strstr(r.note, "no findings of the candidate's own; racecheck reports what "
                                   "it reports in the original kernel"));
    json_t *j = sanitize_result_json(&r);
    assert_string_equal(json_string_value(json_object_get(json_array_get(
                            json_object_get(j, "tools"), SANITIZE_RACECHECK), "status")),
                        "inherited");
    json_decref(j);
    sanitize_result_clear(&r);

    /* the judged run prints up to SANITIZE_JUDGE_PRINT_LIMIT findings, not 1 */
    char want[128];
    snprintf(want, sizeof want, "racecheck --tool racecheck --error-exitcode 86 "
             "--check-exit-code no --print-limit %d", SANITIZE_JUDGE_PRINT_LIMIT);
    assert_non_null(strstr(tool_log(f), want));

    /* the original's race printed first, the candidate's own race (lines 39-40, its own
     * text) after it: every printed finding is judged, not just the first */
    setenv("FAKE_SANITIZER_RACECHECK", FIXTURES "/racecheck_inherited_and_own.txt", 1);
    run(f, "ok", &io, &r);
    setenv("FAKE_SANITIZER_RACECHECK", FIXTURES "/racecheck_warning_all.txt", 1);
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_RACE);
    assert_int_equal(r.tools[SANITIZE_RACECHECK].status, SANITIZE_FOUND);
    sanitize_result_clear(&r);

    /* a racing line the baseline does not have: the candidate's own race */
    const char *changed = cand_text("if (blockSize >= 4)  sdata[tid] += sdata[tid + 2];",
                                    "if (blockSize >= 2)  sdata[tid] += sdata[tid + 1] * 2;");
    io.cand_text = changed;
    io.cand_len = strlen(changed);
    run(f, "ok", &io, &r);
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_RACE);
    sanitize_result_clear(&r);

    /* the racing statement copied to a new place as well (line 10 here): more copies than
     * the original has, so the finding may be the copy's own */
    static char copied[8192];   /* cand_text's buffer is one: same now reads as changed */
    snprintf(copied, sizeof copied, "%s",
             cand_text("if (blockSize >= 4)  sdata[tid] += sdata[tid + 2];",
                       "if (blockSize >= 2)  sdata[tid] += sdata[tid + 1];"));
    char *l10 = copied;
    for (int l = 1; l < 10; l++)
        l10 = strchr(l10, '\n') + 1;
    const char *own = "    // the candidate's own line\n";
    assert_memory_equal(l10, own, strlen(own));
    const char *racing = "if (blockSize >= 2)  sdata[tid] += sdata[tid + 1];";
    char rest[8192];
    snprintf(rest, sizeof rest, "%s", l10 + strlen(own));
    snprintf(l10, sizeof copied - (size_t)(l10 - copied), "%s\n%s", racing, rest);
    io.cand_text = copied;
    io.cand_len = strlen(copied);
    run(f, "ok", &io, &r);
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_RACE);
    sanitize_result_clear(&r);
    sanitize_result_clear(&b);

    /* a baseline without the finding: rejected as before */
    unsetenv("FAKE_SANITIZER_RACECHECK");
    run(f, "ok", &bo, &b);
    assert_int_equal(b.outcome, SANITIZE_PASSED);
    setenv("FAKE_SANITIZER_RACECHECK", FIXTURES "/racecheck_warning_all.txt", 1);
    io.baseline = &b;
    same = cand_text("if (blockSize >= 4)  sdata[tid] += sdata[tid + 2];",
                     "if (blockSize >= 2)  sdata[tid] += sdata[tid + 1];");
    io.cand_text = same;
    io.cand_len = strlen(same);
    run(f, "ok", &io, &r);
    unsetenv("FAKE_SANITIZER_RACECHECK");
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.tools[SANITIZE_RACECHECK].status, SANITIZE_FOUND);
    sanitize_result_clear(&r);
    sanitize_result_clear(&b);

    /* all_tools: the first rejection's reason stands, the later tools still run */
    setenv("FAKE_SANITIZER_MEMCHECK", FIXTURES "/memcheck_oob_read.txt", 1);
    setenv("FAKE_SANITIZER_RACECHECK", FIXTURES "/racecheck_warning.txt", 1);
    run(f, "ok", &bo, &b);
    unsetenv("FAKE_SANITIZER_MEMCHECK");
    unsetenv("FAKE_SANITIZER_RACECHECK");
    assert_int_equal(b.outcome, SANITIZE_REJECTED);
    assert_int_equal(b.reason, MEASURE_OUT_OF_BOUNDS);
    assert_int_equal(b.tools[SANITIZE_RACECHECK].status, SANITIZE_FOUND);
    assert_int_equal(b.tools[SANITIZE_INITCHECK].status, SANITIZE_CLEAN);
    sanitize_result_clear(&b);
}

static void test_run_program_fails(void **state)
{
    fixture *f = *state;
    sanitize_opts so = {.tool = FAKE_TOOL};
    sanitize_result r;
    run(f, "cudaerr", &so, &r);
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_CUDA_ERROR);
    assert_string_equal(r.details, "compute-sanitizer memcheck: the program exited 3 (cuda_error) "
                                   "under the tool without a finding: cudaErrorIllegalAddress");
    sanitize_result_clear(&r);
    run(f, "oob", &so, &r);
    assert_int_equal(r.reason, MEASURE_OUT_OF_BOUNDS);
    sanitize_result_clear(&r);
}

static void test_run_timeout(void **state)
{
    fixture *f = *state;
    setenv("FAKE_SANITIZER_SLEEP", "racecheck", 1);
    sanitize_opts so = {.tool = FAKE_TOOL, .timeout_ms = 1500};
    sanitize_result r;
    run(f, "ok", &so, &r);
    unsetenv("FAKE_SANITIZER_SLEEP");
    assert_int_equal(r.outcome, SANITIZE_UNCHECKED);
    assert_int_equal(r.reason, MEASURE_OK);
    assert_int_equal(r.tools[SANITIZE_MEMCHECK].status, SANITIZE_CLEAN);
    assert_int_equal(r.tools[SANITIZE_RACECHECK].status, SANITIZE_TIMED_OUT);
    assert_true(r.tools[SANITIZE_RACECHECK].cut);
    assert_false(r.tools[SANITIZE_MEMCHECK].cut);
    /* a tool past its limit leaves the next to check (session 46: a kernel slow only under
     * racecheck skipped initcheck) */
    assert_int_equal(r.tools[SANITIZE_INITCHECK].status, SANITIZE_CLEAN);
    assert_string_equal(r.note, "memory safety: not fully checked (memcheck no findings; "
                                "racecheck not checked: timed out after 1 s without a finding; "
                                "initcheck no findings; run mode at size 0 (1000 elements in the "
                                "largest buffer), seed 2001)");
    /* the check could not complete on the candidate's own run: a claim over 2x is not
     * credited (a kernel slow only under the tool keeps no unchecked win), a claim at or
     * under 2x keeps its place with the note */
    assert_true(r.incomplete);
    assert_true(r.tools[SANITIZE_RACECHECK].incomplete);
    assert_false(r.tools[SANITIZE_MEMCHECK].incomplete);
    assert_false(sanitize_credit_allowed(&r, 3.0));
    assert_false(sanitize_credit_allowed(&r, 2.01));
    assert_true(sanitize_credit_allowed(&r, 2.0));
    assert_true(sanitize_credit_allowed(&r, 1.5));
    char *why = sanitize_credit_note(&r, 3.0);
    assert_non_null(why);
    assert_string_equal(why, "memory safety could not be checked (compute-sanitizer racecheck: "
                             "timed out after 1 s without a finding): a speedup over 2x is "
                             "credited only once the tools have checked it, and this candidate "
                             "claims 3.00x; measured, not credited");
    hk_free(why);
    json_t *j = sanitize_result_json(&r);
    assert_true(json_is_true(json_object_get(j, "incomplete")));
    json_decref(j);
    sanitize_result_clear(&r);
    /* the environment's timeout */
    setenv("HK_SANITIZE_TIMEOUT_S", "1", 1);
    setenv("FAKE_SANITIZER_SLEEP", "memcheck", 1);
    sanitize_opts so2 = {.tool = FAKE_TOOL};
    run(f, "ok", &so2, &r);
    unsetenv("FAKE_SANITIZER_SLEEP");
    unsetenv("HK_SANITIZE_TIMEOUT_S");
    assert_int_equal(r.tools[SANITIZE_MEMCHECK].status, SANITIZE_TIMED_OUT);
    assert_int_equal(r.tools[SANITIZE_RACECHECK].status, SANITIZE_CLEAN);
    assert_int_equal(r.tools[SANITIZE_INITCHECK].status, SANITIZE_CLEAN);
    sanitize_result_clear(&r);
}

static void test_not_checked(void **state)
{
    fixture *f = *state;
    sanitize_result r;
    /* no tool: a note, never a silent pass, and nothing runs */
    setenv("HK_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer", 1);
    sanitize_opts so = {0};
    run(f, "ok", &so, &r);
    assert_int_equal(r.outcome, SANITIZE_UNCHECKED);
    assert_string_equal(r.note, "memory safety: not checked (compute-sanitizer not found: "
                                "HK_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer is not an "
                                "executable)");
    assert_string_equal(tool_log(f), "");
    /* the machine's doing, the same for every candidate: the credit stands */
    assert_false(r.incomplete);
    assert_true(sanitize_credit_allowed(&r, 10.0));
    sanitize_result_clear(&r);
    setenv("HK_COMPUTE_SANITIZER", "off", 1);
    run(f, "ok", &so, &r);
    assert_string_equal(r.note, "memory safety: not checked (turned off: "
                                "HK_COMPUTE_SANITIZER=off)");
    sanitize_result_clear(&r);
    setenv("HK_COMPUTE_SANITIZER", FAKE_TOOL, 1);
    run(f, "ok", &so, &r);
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    sanitize_result_clear(&r);
    unsetenv("HK_COMPUTE_SANITIZER");
    /* the toolkit's search, where this machine has none (the CPU machines) */
    char *path = NULL, why[128];
    int rc = sanitize_find_tool(&path, why, sizeof why);
    if (rc == HK_ENOENT) {
        assert_string_equal(why, "compute-sanitizer not found");
        run(f, "ok", &so, &r);
        assert_string_equal(r.note, "memory safety: not checked (compute-sanitizer not found)");
        sanitize_result_clear(&r);
    } else {
        assert_int_equal(rc, HK_OK);
        print_message("compute-sanitizer here: %s\n", path);
    }
    hk_free(path);
    /* a caller that knows it cannot check (simulated GPU, DCU) */
    sanitize_opts sim = {.unchecked = "simulated GPU"};
    run(f, "ok", &sim, &r);
    assert_string_equal(r.note, "memory safety: not checked (simulated GPU)");
    assert_string_equal(tool_log(f), "");
    sanitize_result_clear(&r);
}

/* text written to the file dir/name; its path in out */
static void write_fixture(const fixture *f, const char *name, const char *text, char *out,
                          size_t cap)
{
    snprintf(out, cap, "%s/%s", f->dir, name);
    FILE *fp = fopen(out, "w");
    assert_non_null(fp);
    assert_int_equal(fputs(text, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
}

/* The whole sequence on srad1's kind of original (49152 invalid reads, far past the judged
 * print limit of 64): the baseline under every tool with signatures runs memcheck a second
 * time printing all of them into its own log file; a candidate making the same accesses under
 * another mapping passes (memcheck INHERITED by signature, the other tools still run); the
 * cheat -- the original's 49152 and one read of its own -- and the same count with one of the
 * original's swapped for its own are rejected as out_of_bounds, the reason in the details,
 * whatever the program itself prints on stdout. */
static void test_run_signatures(void **state)
{
    fixture *f = *state;
    char orig[400], same[400], extra[400], swapped[400], fake[400];
    char *t = srad_text(0x7f0000000000ull, 0, 57, SRAD_SAME, 0);
    write_fixture(f, "orig.txt", t, orig, sizeof orig);
    free(t);
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_SAME, 0);
    write_fixture(f, "same.txt", t, same, sizeof same);
    free(t);
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_OWN_EXTRA, 0);
    write_fixture(f, "extra.txt", t, extra, sizeof extra);
    free(t);
    t = srad_text(0x7fe126800000ull, 1, 40, SRAD_OWN_SWAPPED, 0);
    write_fixture(f, "swapped.txt", t, swapped, sizeof swapped);
    free(t);

    setenv("FAKE_SANITIZER_MEMCHECK", orig, 1);
    sanitize_opts bo = {.tool = FAKE_TOOL, .all_tools = true, .signatures = true};
    sanitize_result b;
    run(f, "ok", &bo, &b);
    assert_int_equal(b.outcome, SANITIZE_REJECTED);
    assert_int_equal(b.tools[SANITIZE_MEMCHECK].status, SANITIZE_FOUND);
    assert_int_equal(b.tools[SANITIZE_MEMCHECK].errors, SRAD_FINDINGS); /* at print limit 1 */
    assert_int_equal(b.tools[SANITIZE_INITCHECK].status, SANITIZE_CLEAN);
    assert_non_null(b.sigs);
    assert_true(sanitize_sigs_complete(b.sigs));
    assert_int_equal(b.sigs->errors, SRAD_FINDINGS);
    /* the second memcheck run: every finding, into its own file, no backtraces */
    char want[640];
    snprintf(want, sizeof want, "memcheck --tool memcheck --leak-check no "
             "--report-api-errors no --error-exitcode 86 --check-exit-code no --print-limit %d "
             "--show-backtrace no --log-file %s/bin/hk-sanitize-findings.log ",
             SRAD_FINDINGS + 1, f->dir);
    assert_non_null(strstr(tool_log(f), want));
    char logfile[400];
    snprintf(logfile, sizeof logfile, "%s/bin/hk-sanitize-findings.log", f->dir);
    assert_int_equal(access(logfile, F_OK), -1); /* removed after it was read */

    sanitize_opts io = {.tool = FAKE_TOOL, .baseline = &b, .base_text = "", .base_len = 0,
                        .cand_text = "", .cand_len = 0};
    sanitize_result r;
    setenv("FAKE_SANITIZER_MEMCHECK", same, 1);
    run(f, "ok", &io, &r);
    assert_int_equal(r.outcome, SANITIZE_PASSED);
    assert_int_equal(r.tools[SANITIZE_MEMCHECK].status, SANITIZE_INHERITED);
    assert_true(r.tools[SANITIZE_MEMCHECK].by_signature);
    assert_int_equal(r.tools[SANITIZE_RACECHECK].status, SANITIZE_CLEAN);
    assert_int_equal(r.tools[SANITIZE_INITCHECK].status, SANITIZE_CLEAN);
    assert_non_null(strstr(r.note, "memcheck reports only invalid accesses the original kernel "
                                   "makes too, every one printed and compared by kind, size, "
                                   "allocation and offset: 49152 invalid accesses (the original "
                                   "kernel: 49152), the first: Invalid __global__ read of size 4 "
                                   "bytes; at srad_cuda_1("));
    assert_non_null(strstr(tool_log(f), want)); /* the candidate: the original's count + 1 */
    sanitize_result_clear(&r);

    /* the cheat: one read of its own beside the original's 49152 */
    setenv("FAKE_SANITIZER_MEMCHECK", extra, 1);
    run(f, "ok", &io, &r);
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_OUT_OF_BOUNDS);
    assert_int_equal(r.tools[SANITIZE_MEMCHECK].status, SANITIZE_FOUND);
    assert_non_null(strstr(r.details, "(not the original kernel's: 49153 findings, more than the "
                                      "original kernel's 49152)"));
    sanitize_result_clear(&r);

    /* the count kept, one read swapped for its own; the program printing a clean summary and
     * copies of the original's reports on stdout changes nothing (the tool's log is its own) */
    write_fixture(f, "fake.txt", "========= ERROR SUMMARY: 0 errors\n", fake, sizeof fake);
    setenv("FAKE_SANITIZER_STDOUT", orig, 1);
    setenv("FAKE_SANITIZER_MEMCHECK", swapped, 1);
    run(f, "ok", &io, &r);
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.reason, MEASURE_OUT_OF_BOUNDS);
    assert_non_null(strstr(r.details, "which the original kernel does not make)"));
    sanitize_result_clear(&r);
    setenv("FAKE_SANITIZER_STDOUT", fake, 1);
    run(f, "ok", &io, &r);
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    sanitize_result_clear(&r);
    unsetenv("FAKE_SANITIZER_STDOUT");

    /* without signatures (a baseline run that did not ask), the 49152 findings are past the
     * print limit: rejected as before */
    sanitize_result_clear(&b);
    setenv("FAKE_SANITIZER_MEMCHECK", orig, 1);
    bo.signatures = false;
    run(f, "ok", &bo, &b);
    assert_null(b.sigs);
    io.baseline = &b;
    setenv("FAKE_SANITIZER_MEMCHECK", same, 1);
    run(f, "ok", &io, &r);
    unsetenv("FAKE_SANITIZER_MEMCHECK");
    assert_int_equal(r.outcome, SANITIZE_REJECTED);
    assert_int_equal(r.tools[SANITIZE_MEMCHECK].status, SANITIZE_FOUND);
    sanitize_result_clear(&r);
    sanitize_result_clear(&b);
}

/* Session 40: the sanitizer's own sentences, stored in English with a rejection (a finding's
 * signature the original kernel does not make, an exit status without a report, a report
 * cut at the time limit), said again in zh-CN where shown (hk_tr_said). */
static void test_said_zh(void **state)
{
    (void)state;
    sanitize_sigs s, b;
    assert_int_equal(sanitize_sigs_parse(slurp("memcheck_oob_read.txt"), &s), HK_OK);
    assert_int_equal(sanitize_sigs_parse(slurp("memcheck_oob_write.txt"), &b), HK_OK);
    char why[512];
    assert_false(sanitize_sigs_within(&s, &b, why, sizeof why));
    assert_string_equal(why, "a 4-byte Invalid __global__ write 1 bytes after the end of an "
                             "allocation of 4000012 bytes, which the original kernel does not make");
    said_zh_check(why, "一次 4 字节的 Invalid __global__ write，位于分配块末尾之后 1 字节处（该分配块 "
                       "4000012 字节），原始核函数没有这种访问", NULL, true);
    /* the rejection's details as sanitize_run writes them, the why quoted */
    char *stored = hk_asprintf("compute-sanitizer memcheck at the timed size 2: %s", why);
    said_zh_check(stored, NULL, "compute-sanitizer memcheck（计时规模 2）：一次 4 字节的", true);
    hk_free(stored);
    sanitize_sigs_free(&b);
    sanitize_sigs_free(&s);

    sanitize_tool_result j;
    sanitize_judge(SANITIZE_MEMCHECK, 86, 0, false, 300000, "", &j);
    assert_int_equal(j.status, SANITIZE_FOUND);
    assert_string_equal(j.text, "exit status 86 (errors found)");
    said_zh_check(j.text, "退出状态 86（发现错误）", NULL, true);
    /* a report printed before the time limit cut the run: the tool's words stay */
    sanitize_judge(SANITIZE_MEMCHECK, 86, 0, true, 300000, slurp("memcheck_oob_read.txt"), &j);
    assert_int_equal(j.status, SANITIZE_FOUND);
    assert_non_null(strstr(j.text, " (printed before the run was cut at its time limit)"));
    said_zh_check(j.text, NULL, "（在运行因时间限制被截断之前打印）", false);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_memcheck_read),
        cmocka_unit_test(test_parse_memcheck_write),
        cmocka_unit_test(test_parse_clean),
        cmocka_unit_test(test_parse_racecheck),
        cmocka_unit_test(test_parse_initcheck),
        cmocka_unit_test(test_parse_other_forms),
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_wanted),
        cmocka_unit_test(test_sigs_recorded),
        cmocka_unit_test(test_sigs_rule),
        cmocka_unit_test(test_said_zh),
        cmocka_unit_test_setup_teardown(test_run_clean, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_timed_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_net_only_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_launcher_copied, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_race, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_inherited, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_signatures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_program_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_checked, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
