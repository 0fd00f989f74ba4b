/* Evidence parsers: SASS summaries from cuobjdump text (hand-made fixtures, plus every
 * real_*.sass recorded on the GPU machine), Nsight Compute CSV metrics, the roofline
 * position, the JSON they produce, the tool command lines, and bad input (empty text,
 * an error message, truncated CSV, caps, allocation failures). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hk.h"
#include "episode/evidence.h"

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/evidence/%s", HK_TEST_DATA, name[0] == '/' ? "" : name);
    FILE *f = fopen(name[0] == '/' ? name : path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = hk_malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void parse_file(const char *name, evidence_sass_list *l)
{
    size_t len;
    char *text = slurp(name, &len);
    memset(l, 0, sizeof *l);
    assert_int_equal(evidence_sass_parse(text, len, l), HK_OK);
    hk_free(text);
}

static void sass_naive_vector_add(void **state)
{
    evidence_sass_list l;
    parse_file("handmade_vector_add_sm90.sass", &l);
    assert_int_equal(l.n, 1);
    const evidence_sass *s = &l.items[0];
    assert_string_equal(s->function, "_Z10vector_addPKfS0_Pfi");
    assert_string_equal(s->kernel, "vector_add");
    assert_string_equal(s->arch, "sm_90");
    assert_int_equal(s->total, 17); /* 20 lines, 3 NOP */
    assert_int_equal(s->ldg[1], 2);
    assert_int_equal(s->ldg[3], 0);
    assert_int_equal(s->stg[1], 1);
    assert_int_equal(s->fadd, 1);
    assert_int_equal(s->branch, 1);
    assert_int_equal(s->ldl + s->stl + s->tensor + s->atom_global, 0);
    assert_ptr_equal(evidence_sass_find(&l, "vector_add", "sm_90"), s);
    assert_ptr_equal(evidence_sass_find(&l, "_Z10vector_addPKfS0_Pfi", NULL), s);
    assert_null(evidence_sass_find(&l, "vector_add", "sm_80"));
    assert_null(evidence_sass_find(&l, "saxpy", NULL));

    json_t *j = NULL;
    assert_int_equal(evidence_sass_json(s, &j), HK_OK);
    assert_int_equal(json_integer_value(json_object_get(j, "ldg_32")), 2);
    assert_int_equal(json_integer_value(json_object_get(j, "stg_32")), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "instructions")), 17);
    assert_true(fabs(json_real_value(json_object_get(j, "global_load_bits_avg")) - 32.0) < 1e-9);
    assert_true(json_is_false(json_object_get(j, "local_memory")));
    assert_null(json_object_get(j, "spills")); /* ptxas's word, not the SASS's */
    assert_string_equal(json_string_value(json_object_get(j, "arch")), "sm_90");
    json_decref(j);
    evidence_sass_list_free(&l);
}

static void sass_mixed_kernels_and_archs(void **state)
{
    evidence_sass_list l;
    parse_file("handmade_mixed_sm90_sm80.sass", &l);
    assert_int_equal(l.n, 4);

    const evidence_sass *v4 = evidence_sass_find(&l, "saxpy_vec4", NULL);
    assert_non_null(v4);
    assert_int_equal(v4->total, 23);
    assert_int_equal(v4->ldg[3], 2);
    assert_int_equal(v4->ldg[1], 0);
    assert_int_equal(v4->ldg_constant, 1);
    assert_int_equal(v4->stg[3], 1);
    assert_int_equal(v4->ffma, 4);
    assert_int_equal(v4->branch, 2); /* the predicated back edge and the trailing BRA */

    const evidence_sass *r = evidence_sass_find(&l, "reduce_sum", "sm_90");
    assert_non_null(r);
    assert_int_equal(r->total, 25);
    assert_int_equal(r->ldg[1], 1); /* predicated: still counted */
    assert_int_equal(r->lds, 2);
    assert_int_equal(r->sts, 1);
    assert_int_equal(r->bar, 1);
    assert_int_equal(r->shfl, 2);
    assert_int_equal(r->fadd, 3);
    assert_int_equal(r->atom_global, 1); /* RED.E.ADD.F32 */
    assert_int_equal(r->atom_shared, 1);

    const evidence_sass *g = evidence_sass_find(&l, "sgemm", NULL);
    assert_non_null(g);
    assert_string_equal(g->function, "_Z5sgemmILi128EEviiifPKfS1_fPf");
    assert_int_equal(g->total, 27);
    assert_int_equal(g->ldgsts, 1);
    assert_int_equal(g->ldsm, 1);
    assert_int_equal(g->lds, 1);
    assert_int_equal(g->stl, 2);
    assert_int_equal(g->ldl, 2);
    assert_int_equal(g->tensor, 2); /* HMMA + HGMMA; HFMA2.MMA is not a tensor op */
    assert_int_equal(g->hfma2, 1);
    assert_int_equal(g->dfma, 1);
    assert_int_equal(g->mufu, 1);
    assert_int_equal(g->fmul, 1);
    assert_int_equal(g->ffma, 1);
    assert_int_equal(g->stg[2], 1);
    assert_int_equal(g->stg[0], 1);
    assert_int_equal(g->ldg[0], 1);
    json_t *j = NULL;
    assert_int_equal(evidence_sass_json(g, &j), HK_OK);
    assert_true(json_is_true(json_object_get(j, "local_memory")));
    assert_true(fabs(json_real_value(json_object_get(j, "global_load_bits_avg")) - 12.0) < 1e-9);
    json_decref(j);

    const evidence_sass *old = evidence_sass_find(&l, "vector_add", "sm_80");
    assert_non_null(old);
    assert_string_equal(old->arch, "sm_80");
    assert_int_equal(old->total, 17);
    assert_int_equal(old->ldg[1], 2);
    assert_int_equal(old->hfma2, 1);
    assert_null(evidence_sass_find(&l, "vector_add", "sm_90"));
    evidence_sass_list_free(&l);
}

/* Real cuobjdump output saved by tests/gpu/run.sh and copied into tests/data/evidence. */
static void sass_real_recordings(void **state)
{
    glob_t g;
    if (glob(HK_TEST_DATA "/evidence/real_*.sass", 0, NULL, &g) != 0)
        skip();
    for (size_t i = 0; i < g.gl_pathc; i++) {
        evidence_sass_list l;
        parse_file(g.gl_pathv[i], &l);
        assert_true(l.n >= 1);
        long loads = 0, total = 0;
        for (size_t k = 0; k < l.n; k++) {
            for (int w = 0; w < 5; w++)
                loads += l.items[k].ldg[w];
            total += l.items[k].total;
            assert_true(strncmp(l.items[k].arch, "sm_", 3) == 0);
        }
        assert_true(loads > 0);
        assert_true(total > loads);
        evidence_sass_list_free(&l);
    }
    globfree(&g);
}

static void sass_bad_input(void **state)
{
    evidence_sass_list l = { 0 };
    assert_int_equal(evidence_sass_parse("", 0, &l), HK_EPARSE);
    evidence_sass_list_free(&l);
    const char *err = "cuobjdump info    : File '/tmp/x' does not contain device code\n";
    assert_int_equal(evidence_sass_parse(err, strlen(err), &l), HK_EPARSE);
    evidence_sass_list_free(&l);
    /* instructions before any Function line belong to nobody; junk lines are skipped */
    const char *odd = "        /*0000*/ LDG.E R1, [R2.64] ;\n\t\tFunction : k\n"
                      "        /*0000*/ @!PT LDS.U8 R1, [R2] ;\n/*zz*/ FFMA\n/*0010*/\n"
                      "        /*0020*/   ;\n        /*0030*/ STG.E.128 [R2.64], R4 ;";
    assert_int_equal(evidence_sass_parse(odd, strlen(odd), &l), HK_OK);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.items[0].kernel, "k"); /* not mangled: kept as is */
    assert_string_equal(l.items[0].arch, "");
    assert_int_equal(l.items[0].total, 2);
    assert_int_equal(l.items[0].lds, 1);
    assert_int_equal(l.items[0].stg[3], 1);
    evidence_sass_list_free(&l);
    assert_int_equal(evidence_sass_parse(odd, EVIDENCE_MAX_TEXT + 1, &l), HK_ETOOBIG);
    assert_int_equal(evidence_sass_parse(NULL, 0, &l), HK_EINVAL);
}

static void sass_allocation_failures(void **state)
{
    size_t len;
    char *text = slurp("handmade_mixed_sm90_sm80.sass", &len);
    long before = hk_alloc_live();
    int ok = 0;
    for (long n = 1; n < 200 && !ok; n++) {
        evidence_sass_list l = { 0 };
        hk_alloc_fail_after(n);
        int rc = evidence_sass_parse(text, len, &l);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM);
        if (rc == HK_OK) {
            json_t *j = NULL;
            assert_int_equal(evidence_sass_json(&l.items[0], &j), HK_OK);
            json_decref(j);
            ok = 1;
        }
        evidence_sass_list_free(&l);
        assert_int_equal(hk_alloc_live(), before);
    }
    assert_true(ok);
    hk_free(text);
}

static void ncu_two_launches_averaged(void **state)
{
    size_t len;
    char *text = slurp("handmade_ncu_vector_add.csv", &len);
    evidence_ncu n;
    char *why = NULL;
    assert_int_equal(evidence_ncu_parse(text, len, "vector_add", &n, &why), HK_OK);
    assert_null(why);
    assert_string_equal(n.kernel, "vector_add(const float *, const float *, float *, int)");
    assert_int_equal(n.launches, 2);
    assert_true(fabs(n.dram_pct - (90.12 + 91.04) / 2) < 1e-9);
    assert_true(fabs(n.sm_pct - (17.45 + 17.61) / 2) < 1e-9);
    assert_true(fabs(n.occupancy_pct - (81.37 + 80.95) / 2) < 1e-9);
    assert_true(fabs(n.duration_ms - (271.36 + 268.80) / 2 / 1000) < 1e-12);
    json_t *j = NULL;
    assert_int_equal(evidence_ncu_json(&n, &j), HK_OK);
    assert_int_equal(json_integer_value(json_object_get(j, "launches")), 2);
    assert_true(json_is_real(json_object_get(j, "dram_throughput_pct")));
    json_decref(j);
    evidence_ncu_clear(&n);
    /* NULL kernel: the first profiled one */
    assert_int_equal(evidence_ncu_parse(text, len, NULL, &n, NULL), HK_OK);
    assert_int_equal(n.launches, 2);
    evidence_ncu_clear(&n);
    assert_int_equal(evidence_ncu_parse(text, len, "saxpy", &n, NULL), HK_ENOENT);
    evidence_ncu_clear(&n);
    hk_free(text);
}

static void ncu_template_separators_and_na(void **state)
{
    size_t len;
    char *text = slurp("handmade_ncu_two_kernels.csv", &len);
    evidence_ncu n;
    assert_int_equal(evidence_ncu_parse(text, len, "sgemm", &n, NULL), HK_OK);
    assert_int_equal(n.launches, 1);
    assert_true(fabs(n.dram_pct - 3.21) < 1e-9);
    assert_true(fabs(n.sm_pct - 88.40) < 1e-9);
    assert_true(isnan(n.occupancy_pct)); /* n/a */
    assert_true(fabs(n.duration_ms - 1.23456) < 1e-9);
    json_t *j = NULL;
    assert_int_equal(evidence_ncu_json(&n, &j), HK_OK);
    assert_true(json_is_null(json_object_get(j, "achieved_occupancy_pct")));
    json_decref(j);
    evidence_ncu_clear(&n);
    /* the first kernel of the file is the helper */
    assert_int_equal(evidence_ncu_parse(text, len, NULL, &n, NULL), HK_OK);
    assert_string_equal(n.kernel, "hk_fill_kernel(float *, unsigned long)");
    assert_true(fabs(n.dram_pct - 75.0) < 1e-9);
    assert_true(isnan(n.sm_pct));
    evidence_ncu_clear(&n);
    hk_free(text);
}

static void ncu_errors(void **state)
{
    size_t len;
    char *text = slurp("handmade_ncu_no_permission.txt", &len);
    evidence_ncu n;
    char *why = NULL;
    assert_int_equal(evidence_ncu_parse(text, len, "vector_add", &n, &why), HK_EPARSE);
    assert_non_null(why);
    assert_non_null(strstr(why, "ERR_NVGPUCTRPERM"));
    assert_null(n.kernel);
    assert_true(isnan(n.dram_pct));
    hk_free(why);
    hk_free(text);
    /* a header, then broken rows: unterminated quote, wrong field count, junk values */
    const char *bad = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                      "\"0\",\"k(int)\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"5\n"
                      "\"0\",\"k(int)\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                      "\"0\",\"k(int)\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"12x\"\n"
                      "\"0\",\"k(int)\",\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"%\",\"1e9\"\n"
                      "\"0\",\"k(int)\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"42.5\"\n";
    assert_int_equal(evidence_ncu_parse(bad, strlen(bad), "k", &n, NULL), HK_OK);
    assert_true(fabs(n.dram_pct - 42.5) < 1e-9);
    assert_true(isnan(n.sm_pct));
    assert_true(isnan(n.occupancy_pct)); /* 1e9 % is not a percentage */
    evidence_ncu_clear(&n);
    assert_int_equal(evidence_ncu_parse("", 0, NULL, &n, NULL), HK_EPARSE);
    assert_int_equal(evidence_ncu_parse(bad, EVIDENCE_MAX_TEXT + 1, NULL, &n, NULL), HK_ETOOBIG);
}

static void roofline_memory_and_compute_bound(void **state)
{
    evidence_roofline r;
    /* vector_add, 2^26 floats: 805 MB in 0.25 ms against 4 TB/s and 60 TFLOP/s */
    double bytes = 12.0 * 67108864, flops = 67108864;
    assert_int_equal(evidence_roofline_compute(bytes, flops, 0.25, 4e12, 60e12, &r), HK_OK);
    assert_false(r.compute_bound);
    assert_true(fabs(r.bytes_per_s - bytes / 0.25e-3) < 1);
    assert_true(fabs(r.pct_of_peak_bandwidth - 100.0 * bytes / 0.25e-3 / 4e12) < 1e-9);
    assert_true(fabs(r.pct_of_bound - r.pct_of_peak_bandwidth) < 1e-9);
    assert_true(fabs(r.intensity - 1.0 / 12) < 1e-12);
    assert_true(fabs(r.ridge - 15.0) < 1e-12);
    assert_true(fabs(r.attainable_flop_per_s - 4e12 / 12) < 1);
    assert_true(fabs(r.floor_ms - bytes / 4e12 * 1e3) < 1e-12);

    /* sgemm 2048^3 in 1 ms: intensity 2*2048^3 / (4*4*2048^2) = 256 > ridge 15 */
    double n = 2048;
    assert_int_equal(evidence_roofline_compute(16 * n * n, 2 * n * n * n, 1.0, 4e12, 60e12, &r), HK_OK);
    assert_true(r.compute_bound);
    assert_true(fabs(r.pct_of_bound - r.pct_of_peak_flops) < 1e-9);
    assert_true(fabs(r.pct_of_peak_flops - 100.0 * 2 * n * n * n / 1e-3 / 60e12) < 1e-9);
    assert_true(fabs(r.attainable_flop_per_s - 60e12) < 1);
    json_t *j = NULL;
    assert_int_equal(evidence_roofline_json(&r, &j), HK_OK);
    assert_string_equal(json_string_value(json_object_get(j, "bound")), "compute");
    assert_true(json_is_real(json_object_get(j, "pct_of_bound")));
    json_decref(j);

    /* no FLOP formula (transpose): memory-bound by definition, FLOP fields null */
    assert_int_equal(evidence_roofline_compute(8.0 * 8192 * 8192, NAN, 0.2, 4e12, 60e12, &r), HK_OK);
    assert_false(r.compute_bound);
    assert_true(isnan(r.flop_per_s) && isnan(r.intensity) && isnan(r.ridge));
    assert_int_equal(evidence_roofline_json(&r, &j), HK_OK);
    assert_string_equal(json_string_value(json_object_get(j, "bound")), "memory");
    assert_true(json_is_null(json_object_get(j, "flop_per_s")));
    json_decref(j);

    /* no bandwidth peak measured: only the FLOP side */
    assert_int_equal(evidence_roofline_compute(1e9, 1e12, 100.0, -1, 50e12, &r), HK_OK);
    assert_true(r.compute_bound);
    assert_true(isnan(r.pct_of_peak_bandwidth));
    assert_true(isfinite(r.bytes_per_s)); /* achieved bytes/s is still known */

    /* nothing computable */
    assert_int_equal(evidence_roofline_compute(1e9, 1e9, 0, 4e12, 60e12, &r), HK_EINVAL);
    assert_int_equal(evidence_roofline_compute(1e9, NAN, 1.0, NAN, 60e12, &r), HK_EINVAL);
    assert_int_equal(evidence_roofline_compute(NAN, NAN, 1.0, 4e12, 60e12, &r), HK_EINVAL);
    assert_int_equal(evidence_roofline_json(&r, &j), HK_OK);
    assert_true(json_is_null(json_object_get(j, "bound")));
    json_decref(j);
}

static void command_lines(void **state)
{
    char **argv = NULL;
    assert_int_equal(evidence_cuobjdump_argv(NULL, "/tmp/prog", &argv), HK_OK);
    assert_string_equal(argv[0], "cuobjdump");
    assert_string_equal(argv[1], "--dump-sass");
    assert_string_equal(argv[2], "/tmp/prog");
    assert_null(argv[3]);
    evidence_argv_free(argv);
    assert_int_equal(evidence_cuobjdump_argv(NULL, NULL, &argv), HK_EINVAL);
    assert_null(argv);

    const char *prog[] = { "/tmp/prog", "--mode", "run", NULL };
    assert_int_equal(evidence_ncu_argv("/usr/local/cuda/bin/ncu", "saxpy", 2, prog, &argv), HK_OK);
    const char *want[] = { "/usr/local/cuda/bin/ncu", "--clock-control", "none", "--csv",
                           "--metrics", EVIDENCE_NCU_METRICS, "--kernel-name", "saxpy",
                           "--launch-count", "2", "/tmp/prog", "--mode", "run", NULL };
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++) {
        if (!want[i]) {
            assert_null(argv[i]);
            break;
        }
        assert_string_equal(argv[i], want[i]);
    }
    evidence_argv_free(argv);
    assert_int_equal(evidence_ncu_argv(NULL, NULL, 0, prog, &argv), HK_OK);
    assert_string_equal(argv[0], "ncu");
    assert_string_equal(argv[5], EVIDENCE_NCU_METRICS);
    assert_string_equal(argv[6], "--launch-count");
    assert_string_equal(argv[7], "1");
    evidence_argv_free(argv);
    const char *none[] = { NULL };
    assert_int_equal(evidence_ncu_argv(NULL, "k", 1, none, &argv), HK_EINVAL);
}

int main(void)
{
    hk_alloc_init_json();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sass_naive_vector_add),
        cmocka_unit_test(sass_mixed_kernels_and_archs),
        cmocka_unit_test(sass_real_recordings),
        cmocka_unit_test(sass_bad_input),
        cmocka_unit_test(sass_allocation_failures),
        cmocka_unit_test(ncu_two_launches_averaged),
        cmocka_unit_test(ncu_template_separators_and_na),
        cmocka_unit_test(ncu_errors),
        cmocka_unit_test(roofline_memory_and_compute_bound),
        cmocka_unit_test(command_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
