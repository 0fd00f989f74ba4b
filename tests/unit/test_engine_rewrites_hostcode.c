/* Every rewrite's output passes the referee's host-code policy (server/measure/hostcode.c).
 * The referee refuses a candidate that defines a name the harness uses (HK_..., cuda...),
 * adds host code and so on; a rewrite that emits such a thing is refused on the GPU as
 * host_code every time, whatever it would gain. On the H200, tiled_permute's
 * `#define HK_OUT_INDEX` was (session 18), and tiled_gemm's `#define HK_ROW_OF` had been
 * since the policy came: nothing without a GPU said so. Each registry entry is applied at
 * its default parameters to its skills' sample kernel (tests/data/skills/kernels/NAME.cu),
 * and the text it writes is checked against the kernel as the referee checks a candidate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "core/hk.h"
#include "measure/hostcode.h"
#include "rewrites/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int setup(void **state)
{
    (void)state;
    const char *why;
    return an_grammar_check(&why) == HK_OK ? 0 : -1;
}

/* The file's text, or NULL when it does not exist. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    assert_non_null(t);
    assert_int_equal(fread(t, 1, (size_t)n, f), (size_t)n);
    t[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return t;
}

static void every_rewrite_passes_the_host_code_policy(void **state)
{
    (void)state;
    size_t applied = 0;
    for (size_t i = 0; i < rw_registry_count(); i++) {
        const rw_descriptor *d = rw_registry_at(i);
        char path[700];
        snprintf(path, sizeof path, "%s/skills/kernels/%s.cu", HK_TEST_DATA, d->name);
        size_t len;
        char *text = slurp(path, &len);
        if (!text)
            continue;
        an_model *m = NULL;
        assert_int_equal(an_analyze(text, len, &m), HK_OK);
        long k = -1;
        for (size_t f = 0; f < m->n_funcs && k < 0; f++)
            if (m->funcs[f].kind == AN_KERNEL)
                k = (long)f;
        assert_true(k >= 0);
        rw_context ctx = {.text = text, .len = len, .m = m, .kernel = (size_t)k};
        rw_result out;
        rw_refusal why;
        int rc = rw_apply(d, &ctx, NULL, &out, &why);
        /* set_tunable has no default (it needs the tunable's name): nothing to emit */
        if (rc == HK_EINVAL && !strcmp(d->name, "set_tunable")) {
            rw_result_free(&out);
            an_model_free(m);
            free(text);
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
        rw_result_free(&out);
        an_model_free(m);
        free(text);
    }
    /* not vacuous: most rewrites apply to their own sample kernel */
    assert_true(applied >= 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_rewrite_passes_the_host_code_policy),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
