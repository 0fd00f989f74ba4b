/* Shared by the tests that also run on the wild suite's kernels (bench/wild/, sources
 * extracted by bench/wild/extract.sh, not in the repository): one wild kernel under its
 * hand-written spec, as the episode takes it. Include after cmocka.h, rw_fixture.h and the
 * spec, analysis and search headers. */
#ifndef HK_TEST_WILD_KERNEL_H
#define HK_TEST_WILD_KERNEL_H

#include <string.h>
#include <unistd.h>

typedef struct {
    fixture fx;        /* the source and its model */
    spec *sp;          /* bench/wild/specs/<id>.bench.json */
    spec_diags d;
    size_t k;          /* the spec's kernel in fx */
    search_launch l;   /* the spec's launch on a 132-SM device of 64 resident warps per SM (the
                        * H100's and H200's, as an episode there gives it: rewrites that size
                        * themselves to the device see the one they run on) */
} wild_kernel;

/* Opens wild kernel id into w: false, with a note saying why it is skipped, when its
 * source is not extracted here or its spec does not load (nothing to close then). */
static bool wild_open(const char *id, wild_kernel *w)
{
    char path[700], err[2048];
    memset(w, 0, sizeof *w);
    snprintf(path, sizeof path, HK_SOURCE_DIR "/bench/wild/src/%s.cu", id);
    if (access(path, R_OK) != 0) {
        print_message("note: %s is not extracted (bench/wild/extract.sh), skipped\n", path);
        return false;
    }
    snprintf(path, sizeof path, HK_SOURCE_DIR "/bench/wild/specs/%s.bench.json", id);
    if (spec_load(path, &w->sp, &w->d) != HK_OK) {
        print_message("note: spec %s does not load here, skipped\n", path);
        spec_diags_free(&w->d);
        return false;
    }
    /* a wild file may hold what the parser does not read (SHOC's SharedMem class): its
     * model, errors and all, as the episode takes it */
    w->fx.text = rwf_read_file(w->sp->source_path, &w->fx.len);
    assert_int_equal(an_analyze(w->fx.text, w->fx.len, &w->fx.m), HK_OK);
    w->k = kernel(&w->fx, w->sp->kernel);
    assert_int_equal(search_launch_from_spec(w->sp, 132, &w->l, err, sizeof err), HK_OK);
    w->l.warps_per_sm = 64;
    return true;
}

static void wild_close(wild_kernel *w)
{
    unload(&w->fx);
    spec_free(w->sp);
    spec_diags_free(&w->d);
}

#endif
