/* Compile module, no compiler needed: parsing real nvcc/ptxas/hipcc output saved in
 * tests/data/compile/ (made with CUDA 13.0 and ROCm 5.2 hipcc; see README there),
 * demangling (cross-checked with c++filt when it is installed), occupancy against
 * the CUDA occupancy calculator's rules and clang's own estimate, argv, targets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile/compile.h"
#include "core/hk.h"

static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/compile/%s", HK_TEST_DATA, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("missing fixture %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void parse_fixture(enum cc_backend b, const char *name, cc_result *r)
{
    size_t len;
    char *text = slurp(name, &len);
    memset(r, 0, sizeof *r);
    assert_int_equal(cc_parse_output(b, text, len, r), HK_OK);
    free(text);
}

static const cc_resource *find_res(const cc_result *r, const char *kernel)
{
    for (size_t i = 0; i < r->n_res; i++)
        if (strcmp(r->res[i].kernel, kernel) == 0)
            return &r->res[i];
    fail_msg("no resource record for %s", kernel);
    return NULL;
}

/* ---- nvcc ---- */

static void nvcc_two_kernels(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "saxpy.sm_90.nvcc.txt", &r);
    assert_int_equal(r.n_diags, 0);
    assert_int_equal(r.n_res, 2);
    const cc_resource *s = find_res(&r, "saxpy");
    assert_string_equal(s->mangled, "_Z5saxpyifPKfPf");
    assert_string_equal(s->base_name, "saxpy");
    assert_string_equal(s->arch, "sm_90");
    assert_int_equal(s->registers, 10);
    assert_int_equal(s->spill_stores, 0);
    assert_int_equal(s->stack, 0);
    assert_int_equal(find_res(&r, "scale")->registers, 8);
    cc_result_free(&r);
}

static void nvcc_templates_namespaces_smem_cmem(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "reduce.sm_80.nvcc.txt", &r);
    assert_int_equal(r.n_res, 3);
    const cc_resource *a = find_res(&r, "reduce<1024>");
    assert_string_equal(a->base_name, "reduce");
    assert_string_equal(a->arch, "sm_80");
    assert_int_equal(a->registers, 9);
    assert_int_equal(a->barriers, 1);
    assert_int_equal(a->smem_static, 4096);
    assert_int_equal(a->cmem, 372);
    assert_int_equal(find_res(&r, "reduce<256>")->smem_static, 1024);
    const cc_resource *f = find_res(&r, "hk::fill");
    assert_string_equal(f->base_name, "fill");
    assert_int_equal(f->cmem, 368);
    assert_int_equal(f->smem_static, 0);
    cc_result_free(&r);
}

static void nvcc_spills(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "heavy.sm_90.maxrreg16.nvcc.txt", &r);
    assert_int_equal(r.n_res, 1);
    const cc_resource *h = &r.res[0];
    assert_string_equal(h->kernel, "heavy");
    assert_int_equal(h->registers, 24);
    assert_int_equal(h->stack, 392);
    assert_int_equal(h->spill_stores, 804);
    assert_int_equal(h->spill_loads, 880);
    assert_true(cc_resource_spills(h));
    /* "ptxas warning : For profile sm_90 adjusting per thread register count..." */
    assert_int_equal(r.n_diags, 1);
    assert_int_equal(r.diags[0].severity, CC_WARNING);
    assert_null(r.diags[0].file);
    assert_non_null(strstr(r.diags[0].message, "adjusting per thread register count"));
    cc_result_free(&r);
}

static void nvcc_device_function_frame_is_not_a_kernel(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "dynsmem.sm_90.nvcc.txt", &r);
    assert_int_equal(r.n_res, 1);
    assert_string_equal(r.res[0].kernel, "stencil");
    assert_int_equal(r.res[0].registers, 12);
    assert_int_equal(r.res[0].barriers, 1);
    assert_false(cc_resource_spills(&r.res[0]));
    cc_result_free(&r);
}

static void nvcc_errors(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "errors.sm_90.nvcc.txt", &r);
    assert_int_equal(r.n_res, 0);
    assert_int_equal(r.n_diags, 2);
    assert_string_equal(r.diags[0].file, "errors.cu");
    assert_int_equal(r.diags[0].line, 7);
    assert_int_equal(r.diags[0].severity, CC_ERROR);
    assert_string_equal(r.diags[0].message, "identifier \"undeclared_thing\" is undefined");
    assert_int_equal(r.diags[1].line, 8);
    assert_non_null(strstr(r.diags[1].message, "missing_fn"));
    cc_result_free(&r);
}

static void nvcc_warning_with_number(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "warning.sm_90.nvcc.txt", &r);
    assert_int_equal(r.n_diags, 1);
    assert_string_equal(r.diags[0].file, "warning.cu");
    assert_int_equal(r.diags[0].line, 4);
    assert_int_equal(r.diags[0].severity, CC_WARNING);
    assert_string_equal(r.diags[0].message,
                        "variable \"never_used\" was declared but never referenced [#177-D]");
    assert_int_equal(r.n_res, 1); /* warnings do not stop ptxas */
    assert_string_equal(r.res[0].kernel, "warned");
    cc_result_free(&r);
}

static void nvcc_instantiation_note(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "template_error.sm_90.nvcc.txt", &r);
    assert_int_equal(r.n_diags, 2);
    assert_int_equal(r.diags[0].severity, CC_ERROR);
    assert_int_equal(r.diags[0].line, 8);
    assert_int_equal(r.diags[1].severity, CC_NOTE);
    assert_string_equal(r.diags[1].file, "template_error.cu");
    assert_int_equal(r.diags[1].line, 13);
    assert_non_null(strstr(r.diags[1].message, "instantiation of \"void axpy"));
    cc_result_free(&r);
}

static void nvcc_instantiation_chain(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "nested_template_error.sm_90.nvcc.txt", &r);
    assert_int_equal(r.n_diags, 3);
    assert_int_equal(r.diags[0].severity, CC_ERROR);
    assert_int_equal(r.diags[0].line, 6);
    assert_int_equal(r.diags[1].severity, CC_NOTE);
    assert_int_equal(r.diags[1].line, 14);
    assert_string_equal(r.diags[1].message,
                        "instantiation of \"T load(const T *, int) [with T=float]\"");
    assert_int_equal(r.diags[2].line, 19);
    assert_string_equal(r.diags[2].file, "nested_template_error.cu");
    cc_result_free(&r);
}

static void nvcc_host_compiler_gcc_style(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "host_error.sm_90.nvcc.txt", &r);
    assert_int_equal(r.n_diags, 1);
    assert_string_equal(r.diags[0].file, "host_error.cu");
    assert_int_equal(r.diags[0].line, 4);
    assert_int_equal(r.diags[0].col, 2);
    assert_string_equal(r.diags[0].message, "#error \"define HK_ARCH_OK to build this\"");
    cc_result_free(&r);

    parse_fixture(CC_NVIDIA, "missing_include.sm_90.nvcc.txt", &r);
    assert_int_equal(r.n_diags, 1);
    assert_int_equal(r.diags[0].severity, CC_ERROR);
    assert_int_equal(r.diags[0].line, 2);
    assert_int_equal(r.diags[0].col, 10);
    assert_string_equal(r.diags[0].message, "no_such_header.cuh: No such file or directory");
    cc_result_free(&r);
}

static void ptxas_error_names_kernel(void **state)
{
    cc_result r;
    parse_fixture(CC_NVIDIA, "too_much_smem.sm_90.nvcc.txt", &r);
    assert_int_equal(r.n_diags, 1);
    assert_int_equal(r.diags[0].severity, CC_ERROR);
    assert_null(r.diags[0].file);
    assert_int_equal(r.diags[0].line, 0);
    assert_string_equal(r.diags[0].kernel, "big");
    assert_non_null(strstr(r.diags[0].message, "too much shared data"));
    assert_int_equal(r.n_res, 1);
    assert_int_equal(r.res[0].smem_static, 65536);
    cc_result_free(&r);
}

/* ---- hipcc ---- */

static void hipcc_resource_remarks(void **state)
{
    cc_result r;
    parse_fixture(CC_DCU, "reduce.gfx906.hipcc.txt", &r);
    assert_int_equal(r.n_diags, 0); /* remarks are resources, not diagnostics */
    assert_int_equal(r.n_res, 3);
    const cc_resource *a = find_res(&r, "reduce<1024>");
    assert_int_equal(a->line, 5); /* clang points at the body's opening brace */
    assert_int_equal(a->registers, 4);
    assert_int_equal(a->sgprs, 10);
    assert_int_equal(a->smem_static, 4096);
    assert_int_equal(a->waves_per_simd, 10);
    assert_null(a->arch); /* the job fills in the arch it asked for */
    assert_string_equal(find_res(&r, "hk::fill")->base_name, "fill");
    cc_result_free(&r);

    parse_fixture(CC_DCU, "heavy.gfx90a.hipcc.txt", &r);
    assert_int_equal(r.n_res, 1);
    assert_int_equal(r.res[0].registers, 42);
    assert_int_equal(r.res[0].agprs, 0);
    assert_int_equal(r.res[0].waves_per_simd, 8);
    cc_result_free(&r);
}

/* The same remarks when the backend runs apart from the front end (-save-temps=obj, the
 * referee's DCU image build): "remark: FILE:LINE:0: ..." with the function's line. */
static void hipcc_resource_remarks_save_temps(void **state)
{
    (void)state;
    cc_result r, plain;
    parse_fixture(CC_DCU, "reduce.gfx906.save-temps.hipcc.txt", &r);
    parse_fixture(CC_DCU, "reduce.gfx906.hipcc.txt", &plain);
    assert_int_equal(r.n_diags, 0);
    assert_int_equal(r.n_res, plain.n_res);
    const char *names[] = {"reduce<1024>", "hk::fill"};
    for (size_t i = 0; i < 2; i++) {
        const cc_resource *a = find_res(&r, names[i]), *b = find_res(&plain, names[i]);
        assert_int_equal(a->registers, b->registers);
        assert_int_equal(a->sgprs, b->sgprs);
        assert_int_equal(a->smem_static, b->smem_static);
        assert_int_equal(a->waves_per_simd, b->waves_per_simd);
        assert_true(a->line > 0 && a->line <= b->line);
    }
    cc_result_free(&r);
    cc_result_free(&plain);
}

static void hipcc_spills(void **state)
{
    cc_result r;
    parse_fixture(CC_DCU, "spill.gfx906.hipcc.txt", &r);
    assert_int_equal(r.n_res, 1);
    const cc_resource *h = &r.res[0];
    assert_string_equal(h->kernel, "heavy");
    assert_int_equal(h->registers, 24);
    assert_int_equal(h->vgpr_spills, 159);
    assert_int_equal(h->sgpr_spills, 0);
    assert_int_equal(h->stack, 120);
    assert_true(cc_resource_spills(h));
    cc_result_free(&r);
}

static void hipcc_diagnostics(void **state)
{
    cc_result r;
    parse_fixture(CC_DCU, "errors.gfx906.hipcc.txt", &r);
    assert_int_equal(r.n_diags, 2);
    assert_string_equal(r.diags[0].file, "errors.hip");
    assert_int_equal(r.diags[0].line, 7);
    assert_int_equal(r.diags[0].col, 16);
    assert_string_equal(r.diags[0].message, "use of undeclared identifier 'undeclared_thing'");
    assert_int_equal(r.diags[1].line, 8);
    cc_result_free(&r);

    /* The same warning from the device and host passes is kept once. */
    parse_fixture(CC_DCU, "warning.gfx906.hipcc.txt", &r);
    assert_int_equal(r.n_diags, 1);
    assert_int_equal(r.diags[0].severity, CC_WARNING);
    assert_int_equal(r.diags[0].line, 5);
    assert_int_equal(r.diags[0].col, 9);
    assert_int_equal(r.n_res, 1);
    cc_result_free(&r);

    parse_fixture(CC_DCU, "saxpy.gfx926.hipcc.txt", &r);
    assert_int_equal(r.n_diags, 1);
    assert_null(r.diags[0].file);
    assert_int_equal(r.diags[0].severity, CC_ERROR);
    assert_non_null(strstr(r.diags[0].message, "invalid target ID 'gfx926'"));
    cc_result_free(&r);
}

static void parse_never_fails_on_odd_text(void **state)
{
    static const char *odd[] = {
        "", "\n\n\n", "ptxas info    : Used", "ptxas info    : Function properties for ",
        "    0 bytes stack frame, 0 bytes spill stores,", "x.cu(: error: y", "x.cu(12): error",
        "(12): error: no file", ":1:2: error: no file", "a:b:c: error: x", "clang",
        "clang-: error", "ptxas error   : Entry function ' uses", "x.cu(99999999999999): error: big",
        "f:1:1: remark: Function Name: [-Rpass-analysis=kernel-resource-usage]",
        "f:1:1: remark:     VGPRs: 7 [-Rpass-analysis=kernel-resource-usage]",
        "ptxas info    : Compiling entry function '' for ''",
        "ptxas info    : Compiling entry function '_Z",
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(odd); i++) {
        for (int b = 0; b < 2; b++) {
            cc_result r = {0};
            assert_int_equal(cc_parse_output(b ? CC_DCU : CC_NVIDIA, odd[i], strlen(odd[i]), &r),
                             HK_OK);
            cc_result_free(&r);
        }
    }
    /* Embedded NULs and a missing final newline. */
    const char bin[] = "a.cu(3): error: x\0garbage\nb.cu(4): error: y";
    cc_result r = {0};
    assert_int_equal(cc_parse_output(CC_NVIDIA, bin, sizeof bin - 1, &r), HK_OK);
    assert_int_equal(r.n_diags, 1);
    assert_string_equal(r.diags[0].file, "b.cu");
    cc_result_free(&r);
}

static void parse_out_of_memory_is_clean(void **state)
{
    size_t len;
    char *text = slurp("reduce.sm_80.nvcc.txt", &len);
    long live = hk_alloc_live();
    int saw_nomem = 0;
    for (long n = 1; n < 200; n++) {
        cc_result r = {0};
        hk_alloc_fail_after(n);
        int rc = cc_parse_output(CC_NVIDIA, text, len, &r);
        hk_alloc_fail_after(0);
        assert_true(rc == HK_OK || rc == HK_ENOMEM);
        saw_nomem |= rc == HK_ENOMEM;
        cc_result_free(&r);
        assert_int_equal(hk_alloc_live(), live);
    }
    assert_true(saw_nomem);
    free(text);
}

/* ---- demangling ---- */

static const struct { const char *mangled, *qualified, *base; } names[] = {
    {"_Z5saxpyifPKfPf", "saxpy", "saxpy"},
    {"_Z6reduceILi256EEvPKfPfi", "reduce<256>", "reduce"},
    {"_ZN2hk4fillEPffi", "hk::fill", "fill"},
    {"_Z4gemmI6__halfLi128EEvPKT_S3_PS1_i", "gemm<__half, 128>", "gemm"},
    {"_ZL6kernelPf", "kernel", "kernel"},
    {"_ZN12_GLOBAL__N_16kernelEPf", "(anonymous namespace)::kernel", "kernel"},
    {"_Z1kIN2ns3vecIfEES2_EvPT_", "k<ns::vec<float>, ns::vec<float> >", "k"},
    {"_Z1kILj4ELb1ELl5ELm7EEvv", "k<4u, true, 5l, 7ul>", "k"},
    {"_Z1kIPKfEvT_", "k<float const*>", "k"},
    {"_Z1kILin3EEvv", "k<-3>", "k"},
    {"_Z1kIJifEEvv", "k<int, float>", "k"},
    {"_Z1kI6float2Evv", "k<float2>", "k"},
    {"_ZN2hk6detail6reduceILi64EfEEvPKT0_PS2_i", "hk::detail::reduce<64, float>", "reduce"},
    {"_ZNSt3foo3barEv", "std::foo::bar", "bar"},
    {"saxpy_c", "saxpy_c", "saxpy_c"},
};

static void demangle_names(void **state)
{
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++) {
        char *q = NULL, *b = NULL;
        int rc = cc_demangle(names[i].mangled, &q, &b);
        if (rc != HK_OK)
            fail_msg("%s: rc %d", names[i].mangled, rc);
        if (strcmp(q, names[i].qualified) != 0 || strcmp(b, names[i].base) != 0)
            fail_msg("%s: got '%s' / '%s'", names[i].mangled, q, b);
        hk_free(q);
        hk_free(b);
    }
}

/* c++filt prints "void reduce<256>(float const*, float*, int)": the name part must
 * match ours. Skipped when binutils is not installed. */
static void demangle_agrees_with_cxxfilt(void **state)
{
    if (system("command -v c++filt >/dev/null 2>&1") != 0)
        skip();
    for (size_t i = 0; i < HK_ARRAY_LEN(names); i++) {
        if (strncmp(names[i].mangled, "_Z", 2) != 0)
            continue;
        char cmd[512], line[1024];
        snprintf(cmd, sizeof cmd, "c++filt '%s'", names[i].mangled);
        FILE *p = popen(cmd, "r");
        assert_non_null(p);
        assert_non_null(fgets(line, sizeof line, p));
        pclose(p);
        /* Cut the parameter list at the last top-level '(' and a leading return type. */
        char *paren = strrchr(line, '(');
        assert_non_null(paren);
        *paren = '\0';
        char *name = line;
        int depth = 0;
        for (char *c = line; *c; c++) {
            if (*c == '<')
                depth++;
            else if (*c == '>')
                depth--;
            else if (*c == ' ' && depth == 0 && strncmp(line, "(anonymous", 10) != 0)
                name = c + 1;
        }
        char *q = NULL;
        assert_int_equal(cc_demangle(names[i].mangled, &q, NULL), HK_OK);
        if (strcmp(q, name) != 0)
            fail_msg("%s: c++filt '%s', ours '%s'", names[i].mangled, name, q);
        hk_free(q);
    }
}

static void demangle_refuses_garbage(void **state)
{
    static const char *bad[] = {"_Z", "_Z999x", "_ZN2hk", "_Z1kI", "_Z1kIS9_Evv",
                                "_ZNK3FooC1Ev", "has space", "_Z1kIXadL_Z1fvEEEvv", ""};
    for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
        char *q = (char *)1, *b = (char *)1;
        assert_int_equal(cc_demangle(bad[i], &q, &b), HK_EPARSE);
        assert_null(q);
        assert_null(b);
    }
    /* Deep nesting is bounded, not a stack overflow. */
    char deep[4096] = "_Z1kI";
    for (int i = 0; i < 500; i++)
        strcat(deep, "P");
    strcat(deep, "iEvv");
    char *q = NULL;
    assert_int_equal(cc_demangle(deep, &q, NULL), HK_EPARSE);
}

/* ---- occupancy ---- */

static void occupancy_nvidia_calculator_rules(void **state)
{
    cc_resource r = {0};
    cc_occupancy o;

    /* 128 regs x 256 threads on sm_90: 4096 regs/warp, 16384/4096 = 4 warps per
     * sub-partition, 16 warps per SM, 2 blocks, 25%. */
    r.registers = 128;
    assert_int_equal(cc_occupancy_for("sm_90", &r, 256, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 2);
    assert_int_equal(o.warps_per_sm, 16);
    assert_string_equal(o.limiter, "registers");
    assert_true(o.occupancy > 0.249 && o.occupancy < 0.251);

    /* 40 regs x 128 threads: 1280 regs/warp; 12 warps per sub-partition (not 51/4),
     * 48 warps, 12 blocks: 75%. */
    r.registers = 40;
    assert_int_equal(cc_occupancy_for("sm_80", &r, 128, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 12);
    assert_int_equal(o.warps_per_sm, 48);
    assert_string_equal(o.limiter, "registers");

    /* Few registers: the 64-warp limit binds; 0 threads means 256. */
    r.registers = 12;
    assert_int_equal(cc_occupancy_for("sm_90", &r, 0, 0, &o), HK_OK);
    assert_int_equal(o.block_threads, 256);
    assert_int_equal(o.blocks_per_sm, 8);
    assert_string_equal(o.limiter, "threads");
    assert_true(o.occupancy > 0.999);

    /* Tiny blocks hit the resident-block limit (16 on sm_86). */
    assert_int_equal(cc_occupancy_for("sm_86", &r, 32, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 16);
    assert_string_equal(o.limiter, "blocks");

    /* Shared memory on sm_86: 49152 + 1024 reserved = 50176 per block, 102400 per SM. */
    r.smem_static = 49152;
    assert_int_equal(cc_occupancy_for("sm_86", &r, 256, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 2);
    assert_string_equal(o.limiter, "shared memory");
    /* Dynamic shared memory adds to it; over the opt-in maximum nothing fits. */
    assert_int_equal(cc_occupancy_for("sm_86", &r, 256, 60000, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 0);
    assert_string_equal(o.limiter, "shared memory");
    r.smem_static = 0;

    /* Barriers limit from sm_90 on: sm_120 has one per resident block, so a kernel
     * using 2 gets half the 24 blocks; sm_86 does not count them. */
    r.barriers = 2;
    assert_int_equal(cc_occupancy_for("sm_120", &r, 32, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 12);
    assert_string_equal(o.limiter, "barriers");
    assert_int_equal(cc_occupancy_for("sm_86", &r, 32, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 16);
    r.barriers = 0;

    /* sm_75 has 32 warps per SM. */
    assert_int_equal(cc_occupancy_for("sm_75", &r, 1024, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 1);
    assert_true(o.occupancy > 0.999);

    /* Feature-suffixed arch names share the SM's limits. */
    assert_int_equal(cc_occupancy_for("sm_90a", &r, 256, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 8);
}

/* Checks cc_occupancy_for against every row of a reference table
 * ("arch regs smem_static threads dyn barriers blocks") and its "# prop NAME VALUE"
 * lines (device limits) against the arch table. Returns the number of rows. */
static size_t check_occupancy_table(const char *file)
{
    size_t len;
    char *text = slurp(file, &len);
    size_t rows = 0;
    const cc_arch_limits *a = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64], val[64];
        if (sscanf(line, "# prop %63s %63s", name, val) == 2) {
            long v = atol(val);
            if (!strcmp(name, "arch")) {
                a = cc_arch_find(val);
                assert_non_null(a);
            } else if (a && !strcmp(name, "maxThreadsPerMultiProcessor")) {
                assert_int_equal(v, a->max_warps_per_sm * a->warp_size);
            } else if (a && !strcmp(name, "maxBlocksPerMultiProcessor")) {
                assert_int_equal(v, a->max_blocks_per_sm);
            } else if (a && !strcmp(name, "regsPerMultiprocessor")) {
                assert_int_equal(v, a->regs_per_sm);
            } else if (a && !strcmp(name, "sharedMemPerMultiprocessor")) {
                assert_int_equal(v, a->smem_per_sm);
            } else if (a && !strcmp(name, "sharedMemPerBlockOptin")) {
                assert_int_equal(v, a->smem_per_block);
            } else if (a && !strcmp(name, "reservedSharedMemPerBlock")) {
                assert_int_equal(v, a->smem_reserved);
            } else if (a && !strcmp(name, "maxThreadsPerBlock")) {
                assert_int_equal(v, a->max_threads_per_block);
            } else if (a && !strcmp(name, "warpSize")) {
                assert_int_equal(v, a->warp_size);
            }
            continue;
        }
        if (line[0] == '#')
            continue;
        char arch[16];
        int regs, smem, threads, dyn, bars, want;
        if (sscanf(line, "%15s %d %d %d %d %d %d", arch, &regs, &smem, &threads, &dyn, &bars,
                   &want) != 7)
            fail_msg("%s: bad row: %s", file, line);
        cc_resource r = {0};
        r.registers = regs;
        r.smem_static = smem;
        r.barriers = bars;
        cc_occupancy o;
        assert_int_equal(cc_occupancy_for(arch, &r, threads, dyn, &o), HK_OK);
        if (o.blocks_per_sm != want)
            fail_msg("%s: %s: ours %d blocks (limiter %s), reference %d", file, line,
                     o.blocks_per_sm, o.limiter, want);
        rows++;
    }
    free(text);
    return rows;
}

/* Differential test against NVIDIA's own occupancy code: occupancy_ref.txt holds
 * cudaOccMaxActiveBlocksPerMultiprocessor results (cuda_occupancy.h, see
 * occupancy_ref.cpp) over registers x shared memory x block size x dynamic shared
 * memory x barriers for every NVIDIA arch in the table. */
static void occupancy_matches_cuda_occupancy_h(void **state)
{
    assert_true(check_occupancy_table("occupancy_ref.txt") >= 6000);
}

/* And against the CUDA runtime on a real H200 (occupancy_device.cu): compiled
 * kernels' registers and shared memory, the device's own limits. */
static void occupancy_matches_h200_runtime(void **state)
{
    assert_true(check_occupancy_table("occupancy_h200.txt") >= 100);
}

static void occupancy_bad_input(void **state)
{
    cc_resource r = {0};
    cc_occupancy o;
    r.registers = 32;
    assert_int_equal(cc_occupancy_for("sm_35", &r, 256, 0, &o), HK_EUNSUPPORTED);
    assert_int_equal(cc_occupancy_for(NULL, &r, 256, 0, &o), HK_EUNSUPPORTED);
    assert_int_equal(cc_occupancy_for("sm_90", &r, -1, 0, &o), HK_EINVAL);
    assert_int_equal(cc_occupancy_for("sm_90", &r, 256, -5, &o), HK_EINVAL);
    assert_int_equal(cc_occupancy_for("sm_90", &r, 2048, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 0);
    assert_string_equal(o.limiter, "threads");
    r.registers = 300;
    assert_int_equal(cc_occupancy_for("sm_90", &r, 256, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 0);
    assert_string_equal(o.limiter, "registers");
}

/* clang's "Occupancy [waves/SIMD]" is computed for 1024-thread workgroups: ours must
 * agree on every fixture where registers decide it. */
static void occupancy_dcu_matches_clang(void **state)
{
    static const struct { const char *file, *arch; } fx[] = {
        {"vgpr.gfx906.hipcc.txt", "gfx906"}, {"vgpr.gfx90a.hipcc.txt", "gfx90a"},
        {"heavy.gfx90a.hipcc.txt", "gfx90a"}, {"spill.gfx906.hipcc.txt", "gfx906"},
        {"saxpy.gfx906.hipcc.txt", "gfx906"},
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(fx); i++) {
        cc_result r;
        parse_fixture(CC_DCU, fx[i].file, &r);
        assert_true(r.n_res >= 1);
        const cc_arch_limits *a = cc_arch_find(fx[i].arch);
        assert_non_null(a);
        /* Without LDS, a 64-thread workgroup shows the per-SIMD register limit. */
        cc_resource x = r.res[0];
        x.smem_static = 0;
        cc_occupancy o;
        assert_int_equal(cc_occupancy_for(fx[i].arch, &x, 64, 0, &o), HK_OK);
        int waves_per_simd = o.warps_per_sm / a->simds;
        if (waves_per_simd != r.res[0].waves_per_simd)
            fail_msg("%s: ours %d waves/SIMD, clang %d", fx[i].file, waves_per_simd,
                     r.res[0].waves_per_simd);
        cc_result_free(&r);
    }

    /* vgpr.hip on gfx906: 64 VGPRs -> 4 waves/SIMD; 1024 threads = 16 waves: 1 block. */
    cc_result r;
    parse_fixture(CC_DCU, "vgpr.gfx906.hipcc.txt", &r);
    cc_occupancy o;
    assert_int_equal(cc_occupancy_for("gfx906", &r.res[0], 1024, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 1);
    assert_string_equal(o.limiter, "registers");
    /* With 256 threads: registers allow 4, 16 KiB LDS allows 4 of 64 KiB: tie. */
    assert_int_equal(cc_occupancy_for("gfx906", &r.res[0], 256, 0, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 4);
    /* More LDS makes shared memory the limiter. */
    assert_int_equal(cc_occupancy_for("gfx906", &r.res[0], 256, 16384, &o), HK_OK);
    assert_int_equal(o.blocks_per_sm, 2);
    assert_string_equal(o.limiter, "shared memory");
    cc_result_free(&r);

    /* Hygon archs use the gfx9 wavefront-64 model. */
    assert_non_null(cc_arch_find("gfx926"));
    assert_int_equal(cc_arch_find("gfx936")->warp_size, 64);
    assert_non_null(cc_arch_find("gfx90a:xnack-"));
}

static void arch_table_is_sane(void **state)
{
    size_t n;
    const cc_arch_limits *t = cc_arch_table(&n);
    assert_true(n >= 13);
    for (size_t i = 0; i < n; i++) {
        assert_true(t[i].warp_size == 32 || t[i].warp_size == 64);
        assert_true(t[i].smem_per_block <= t[i].smem_per_sm);
        assert_true(t[i].max_blocks_per_sm > 0 && t[i].max_warps_per_sm > 0);
        assert_ptr_equal(cc_arch_find(t[i].arch), &t[i]);
    }
}

/* ---- argv and targets ---- */

static void build_argv(void **state)
{
    const char *extra[] = {"-I/inc", "-DX=1", NULL};
    cc_options o = {.backend = CC_NVIDIA, .extra = extra};
    char **argv;
    assert_int_equal(cc_build_argv(&o, "/t/k.cu", &argv), HK_OK);
    const char *want[] = {"nvcc", "-arch=sm_90", "-Xptxas", "-v", "-c", "-o", "/dev/null",
                          "-I/inc", "-DX=1", "-x", "cu", "/t/k.cu", NULL};
    for (size_t i = 0; i < HK_ARRAY_LEN(want); i++) {
        if (!want[i]) {
            assert_null(argv[i]);
            break;
        }
        assert_string_equal(argv[i], want[i]);
    }
    cc_argv_free(argv);

    cc_options h = {.backend = CC_DCU, .compiler = "/opt/dtk/bin/hipcc", .arch = "gfx928"};
    assert_int_equal(cc_build_argv(&h, "k.hip", &argv), HK_OK);
    const char *hwant[] = {"/opt/dtk/bin/hipcc", "--offload-arch=gfx928",
                           "-Rpass-analysis=kernel-resource-usage", "-c", "-o", "/dev/null",
                           "-x", "hip", "k.hip", NULL};
    for (size_t i = 0; i < HK_ARRAY_LEN(hwant); i++) {
        if (!hwant[i]) {
            assert_null(argv[i]);
            break;
        }
        assert_string_equal(argv[i], hwant[i]);
    }
    cc_argv_free(argv);

    cc_options bad = {.backend = CC_NVIDIA, .arch = "-rf"};
    assert_int_equal(cc_build_argv(&bad, "k.cu", &argv), HK_EINVAL);
    assert_int_equal(cc_build_argv(&o, "", &argv), HK_EINVAL);
}

static void parse_targets(void **state)
{
    enum cc_backend b;
    char *arch;
    assert_int_equal(cc_parse_target("nvidia:sm_90", &b, &arch), HK_OK);
    assert_int_equal(b, CC_NVIDIA);
    assert_string_equal(arch, "sm_90");
    hk_free(arch);
    assert_int_equal(cc_parse_target("dcu:gfx906", &b, &arch), HK_OK);
    assert_int_equal(b, CC_DCU);
    assert_string_equal(arch, "gfx906");
    hk_free(arch);
    assert_int_equal(cc_parse_target("gfx90a:xnack-", &b, &arch), HK_OK);
    assert_int_equal(b, CC_DCU);
    hk_free(arch);
    assert_int_equal(cc_parse_target("sm_80", &b, &arch), HK_OK);
    hk_free(arch);
    assert_int_equal(cc_parse_target("nvidia:sm_90a", &b, &arch), HK_OK);
    hk_free(arch);
    assert_int_equal(cc_parse_target("nvidia:sm_100f", &b, &arch), HK_OK);
    hk_free(arch);
    /* issue 15: an arch nvcc does not know is not a target (a bad argument, not a compile
     * error later) */
    static const char *bad[] = {"", "nvidia:", "nvidia:gfx906", "dcu:sm_90", "x86",
                                "nvidia:sm_90;rm", "sm_90 -o", "nvidia:sm_999", "sm_999",
                                "nvidia:sm_9", "nvidia:sm_35", "nvidia:sm_80a", "nvidia:sm_",
                                "nvidia:sm_90x", "nvidia:sm_090", NULL};
    for (size_t i = 0; bad[i]; i++)
        if (cc_parse_target(bad[i], &b, &arch) != HK_EINVAL)
            fail_msg("'%s' parsed as a target", bad[i]);
    assert_int_equal(cc_parse_target(NULL, &b, &arch), HK_EINVAL);
}

/* Every arch of the occupancy table is known, and the list given in messages is exactly
 * what cc_nvidia_arch_known accepts. */
static void nvidia_archs(void **state)
{
    size_t n;
    const cc_arch_limits *t = cc_arch_table(&n);
    for (size_t i = 0; i < n; i++)
        if (t[i].backend == CC_NVIDIA && !cc_nvidia_arch_known(t[i].arch))
            fail_msg("%s is in the occupancy table but not known", t[i].arch);
    char text[512];
    snprintf(text, sizeof text, "%s", cc_nvidia_archs_text());
    char *paren = strchr(text, '(');
    assert_non_null(paren);
    *paren = '\0';
    int listed = 0;
    for (char *save = NULL, *w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        assert_true(cc_nvidia_arch_known(w));
        listed++;
    }
    int known = 0;
    for (int cc = 10; cc < 1000; cc++) {
        char a[16];
        snprintf(a, sizeof a, "sm_%d", cc);
        known += cc_nvidia_arch_known(a);
    }
    assert_int_equal(listed, known);
    assert_false(cc_nvidia_arch_known(NULL));
    assert_false(cc_nvidia_arch_known("sm_89a"));
    assert_true(cc_nvidia_arch_known("sm_121a"));
}

/* cc_source_is_text: NUL bytes and invalid UTF-8 (overlong, surrogate, past U+10FFFF, cut
 * at the end of the file) are found with their offset; a sequence cut only by the probe's
 * 64 KiB limit is not held against the text. */
static void source_is_text(void **state)
{
    const char *why = NULL;
    size_t at = 0;
    static const char ok[] = "__global__ void k() {} // caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80\n";
    assert_true(cc_source_is_text(ok, strlen(ok), &why, &at));
    assert_true(cc_source_is_text("", 0, NULL, NULL));
    static const struct {
        const char *text;
        size_t len;
        const char *why;
        size_t at;
    } bad[] = {
        {"ab\0cd", 5, "a NUL byte", 2},
        {"x\xe9y", 3, "invalid UTF-8", 1},            /* Latin-1 */
        {"x\xc0\xafy", 4, "invalid UTF-8", 1},        /* overlong '/' */
        {"x\xed\xa0\x80", 4, "invalid UTF-8", 1},     /* a surrogate */
        {"x\xf4\x90\x80\x80", 5, "invalid UTF-8", 1}, /* past U+10FFFF */
        {"xy\xe4\xb8", 4, "invalid UTF-8", 2},         /* cut by the end of the file */
        {"\x80", 1, "invalid UTF-8", 0},               /* a lone continuation byte */
    };
    for (size_t i = 0; i < HK_ARRAY_LEN(bad); i++) {
        why = NULL;
        at = 99;
        if (cc_source_is_text(bad[i].text, bad[i].len, &why, &at))
            fail_msg("case %zu was taken for text", i);
        assert_string_equal(why, bad[i].why);
        assert_int_equal(at, bad[i].at);
    }
    /* past the probe nothing is read; a sequence the probe cuts is fine */
    size_t n = CC_TEXT_PROBE_BYTES + 16;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'a', n);
    big[CC_TEXT_PROBE_BYTES + 4] = '\0';
    assert_true(cc_source_is_text(big, n, NULL, NULL));
    big[CC_TEXT_PROBE_BYTES - 1] = (char)0xe4;
    big[CC_TEXT_PROBE_BYTES] = (char)0xb8;
    big[CC_TEXT_PROBE_BYTES + 1] = (char)0xad;
    assert_true(cc_source_is_text(big, n, NULL, NULL));
    assert_false(cc_source_is_text(big, CC_TEXT_PROBE_BYTES, &why, &at)); /* the file ends */
    assert_int_equal(at, CC_TEXT_PROBE_BYTES - 1);
    big[10] = '\0';
    assert_false(cc_source_is_text(big, n, &why, &at));
    assert_string_equal(why, "a NUL byte");
    assert_int_equal(at, 10);

    /* the file form: missing, a directory, binary, text */
    bool is_text = true;
    assert_int_equal(cc_source_file_is_text("/nonexistent/x.cu", &is_text, &why, &at),
                     HK_ENOENT);
    assert_false(is_text);
    assert_int_equal(cc_source_file_is_text("/tmp", &is_text, &why, &at), HK_EINVAL);
    char path[] = "/tmp/hk-text-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, big, n), (ssize_t)n);
    close(fd);
    assert_int_equal(cc_source_file_is_text(path, &is_text, &why, &at), HK_OK);
    assert_false(is_text);
    assert_int_equal(at, 10);
    big[10] = 'a';
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, big, n), (ssize_t)n);
    close(fd);
    assert_int_equal(cc_source_file_is_text(path, &is_text, &why, &at), HK_OK);
    assert_true(is_text); /* the sequence cut at 64 KiB continues after it */
    unlink(path);
    free(big);
}

static void find_compiler(void **state)
{
    char *p = NULL;
    /* nvcc is installed at /usr/local/cuda/bin on the dev machines, not necessarily
     * on PATH: the fallback directory must find it. */
    if (system("test -x /usr/local/cuda/bin/nvcc") == 0) {
        assert_int_equal(cc_find_compiler(CC_NVIDIA, &p), HK_OK);
        assert_non_null(strstr(p, "/nvcc"));
        assert_true(p[0] == '/');
        hk_free(p);
    }
    assert_int_equal(cc_find_tool(CC_NVIDIA, "no-such-tool-hk", &p), HK_ENOENT);
    assert_null(p);
    assert_int_equal(cc_find_tool(CC_NVIDIA, "../nvcc", &p), HK_ENOENT);
    /* CUDA_HOME is honoured. */
    char dir[] = "/tmp/hk-find-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char bin[256], tool[300];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    snprintf(tool, sizeof tool, "%s/hk-fake-nvcc", bin);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && printf '#!/bin/sh\\n' > %s && chmod +x %s", bin,
             tool, tool);
    assert_int_equal(system(cmd), 0);
    setenv("CUDA_HOME", dir, 1);
    assert_int_equal(cc_find_tool(CC_NVIDIA, "hk-fake-nvcc", &p), HK_OK);
    assert_string_equal(p, tool);
    hk_free(p);
    unsetenv("CUDA_HOME");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* nvcc runs its steps with sh -c and leaves backquotes in "..." alone: what may reach it */
static void shell_safe_arguments(void **st)
{
    assert_true(cc_arg_shell_safe(CC_NVIDIA, "-I/home/me/src/include"));
    assert_true(cc_arg_shell_safe(CC_NVIDIA, "-DN=4,M=+1:@%~#^"));
    assert_true(cc_arg_shell_safe(CC_NVIDIA, "-I/home/me/My Kernels")); /* nvcc quotes */
    assert_false(cc_arg_shell_safe(CC_DCU, "-I/home/me/My Kernels"));  /* hipcc may not */
    assert_true(cc_arg_shell_safe(CC_NVIDIA, "-I/home/\xc3\xa9t\xc3\xa9"));
    static const char *const bad[] = {"-Ix`touch y`", "-I$(id)", "-DA=\"b\"", "-I'a'",
                                       "-Ia\\b", "-Ia;b", "-Ia&b", "-Ia|b", "-Ia>b",
                                       "-Ia<b", "-Ia(b)", "-Ia*", "-Ia?", "-Ia!", "-Ia{b}",
                                       "-Ia[b]", "-Ia\nb", "-Ia\tb"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_false(cc_arg_shell_safe(CC_NVIDIA, bad[i]));
        assert_false(cc_arg_shell_safe(CC_DCU, bad[i]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shell_safe_arguments),
        cmocka_unit_test(nvcc_two_kernels),
        cmocka_unit_test(nvcc_templates_namespaces_smem_cmem),
        cmocka_unit_test(nvcc_spills),
        cmocka_unit_test(nvcc_device_function_frame_is_not_a_kernel),
        cmocka_unit_test(nvcc_errors),
        cmocka_unit_test(nvcc_warning_with_number),
        cmocka_unit_test(nvcc_instantiation_note),
        cmocka_unit_test(nvcc_instantiation_chain),
        cmocka_unit_test(nvcc_host_compiler_gcc_style),
        cmocka_unit_test(ptxas_error_names_kernel),
        cmocka_unit_test(hipcc_resource_remarks),
        cmocka_unit_test(hipcc_resource_remarks_save_temps),
        cmocka_unit_test(hipcc_spills),
        cmocka_unit_test(hipcc_diagnostics),
        cmocka_unit_test(parse_never_fails_on_odd_text),
        cmocka_unit_test(parse_out_of_memory_is_clean),
        cmocka_unit_test(demangle_names),
        cmocka_unit_test(demangle_agrees_with_cxxfilt),
        cmocka_unit_test(demangle_refuses_garbage),
        cmocka_unit_test(occupancy_nvidia_calculator_rules),
        cmocka_unit_test(occupancy_matches_cuda_occupancy_h),
        cmocka_unit_test(occupancy_matches_h200_runtime),
        cmocka_unit_test(occupancy_bad_input),
        cmocka_unit_test(occupancy_dcu_matches_clang),
        cmocka_unit_test(arch_table_is_sane),
        cmocka_unit_test(build_argv),
        cmocka_unit_test(parse_targets),
        cmocka_unit_test(nvidia_archs),
        cmocka_unit_test(source_is_text),
        cmocka_unit_test(find_compiler),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
