/* Every rewrite's output passes the referee's host-code policy (server/measure/hostcode.c).
 * The referee refuses a candidate that defines a name the harness uses (HK_..., cuda...),
 * adds host code and so on; a rewrite that emits such a thing is refused on the GPU as
 * host_code every time, whatever it would gain. On the H200, tiled_permute's
 * `#define HK_OUT_INDEX` was (session 18), and tiled_gemm's `#define HK_ROW_OF` had been
 * since the policy came: nothing without a GPU said so. Each registry entry is applied at
 * its default parameters to its skills' sample kernel (tests/data/skills/kernels/NAME.cu,
 * under NAME.bench.json when the rewrite reads the spec: staged_gather), and the text it
 * writes is checked against the kernel as the referee checks a candidate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "core/hk.h"
#include "measure/hostcode.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite.h"
#include "spec/spec.h"
#include "rw_fixture.h"

static int setup(void **state)
{
    (void)state;
    return rwf_setup("hostcode");
}

static int teardown(void **state)
{
    (void)state;
    return rwf_teardown();
}

static void every_rewrite_passes_the_host_code_policy(void **state)
{
    (void)state;
    size_t applied = 0;
    for (size_t i = 0; i < rw_registry_count(); i++) {
        const rw_descriptor *d = rw_registry_at(i);
        char path[700];
        snprintf(path, sizeof path, "%s/skills/kernels/%s.cu", HK_TEST_DATA, d->name);
        if (access(path, R_OK) != 0)
            continue; /* a rewrite without a sample kernel */
        fixture fx;
        load_path(path, &fx);
        long k = -1;
        for (size_t f = 0; f < fx.m->n_funcs && k < 0; f++)
            if (fx.m->funcs[f].kind == AN_KERNEL)
                k = (long)f;
        assert_true(k >= 0);
        const char *text = fx.text;
        size_t len = fx.len;
        spec *sp = NULL;
        snprintf(path, sizeof path, "%s/skills/kernels/%s.bench.json", HK_TEST_DATA, d->name);
        if (access(path, R_OK) == 0) {
            spec_diags sd = {0};
            assert_int_equal(spec_load(path, &sp, &sd), HK_OK);
            spec_diags_free(&sd);
        }
        rw_context ctx = {.text = text, .len = len, .m = fx.m, .kernel = (size_t)k, .spec = sp};
        rw_result out;
        rw_refusal why;
        int rc = rw_apply(d, &ctx, NULL, &out, &why);
        /* set_tunable has no default (it needs the tunable's name): nothing to emit */
        if (rc == HK_EINVAL && !strcmp(d->name, "set_tunable")) {
            rw_result_free(&out);
            spec_free(sp);
            unload(&fx);
            continue;
        }
        if (rc != HK_OK)
            fail_msg("%s: %s", d->name, hk_strerror(rc));
        /* the engine's own library call is host code by design: the episode builds it as
         * a program and exempts it (episode.c, library_call) */
        if (out.applicable && !(d->flags & RW_LIBRARY_CALL)) {
            applied++;
            hostcode_finding hf;
            assert_int_equal(hostcode_check(text, len, out.text, out.len, &hf), HK_OK);
            if (hf.found)
                fail_msg("%s's output is refused as host code: line %u: %s (%s)", d->name,
                         hf.line, hf.why, hf.quote);
            hostcode_finding_clear(&hf);
        }
        if (sp && !out.applicable)
            fail_msg("%s does not apply to its sample under its spec: %s", d->name, out.description);
        rw_result_free(&out);
        spec_free(sp);
        unload(&fx);
    }
    /* not vacuous: most rewrites apply to their own sample kernel */
    assert_true(applied >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_rewrite_passes_the_host_code_policy),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
