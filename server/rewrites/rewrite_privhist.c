/* privatized_histogram (rewrite_pattern.h): a global-atomic histogram, recognized by
 * rwp_match_histogram, becomes a per-block shared histogram merged once per block. */
#include "rewrites/rewrite_pattern.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_recognize.h"
#include "rewrites/rewrite_lex.h"

#include "core/buf.h"
#include "core/hk.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char tpl_hist[] =
    "{\n"
    "    // hk rewrite: privatized histogram. Each block counts into shared memory, then adds\n"
    "    // its non-zero bins to the global histogram (one atomic per bin per block). A bin\n"
    "    // outside [0, HK_BINS) goes to global memory directly.\n"
    PT_MAX_BLOCKS
    "    constexpr int HK_BINS = $BINS;\n"
    "    __shared__ $T hk_hist[HK_BINS];\n"
    PT_THREADS
    "    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)\n"
    "        hk_hist[hk_b] = 0;\n"
    "    __syncthreads();\n"
    "    // several loads in flight per thread: the loop is latency-bound otherwise\n"
    "    #pragma unroll 4\n"
    "    $HEAD\n"
    "        const long long hk_bin = (long long)($BIN);\n"
    "        if (hk_bin >= 0 && hk_bin < HK_BINS)\n"
    "            atomicAdd(&hk_hist[hk_bin], ($T)($VAL));\n"
    "        else\n"
    "            atomicAdd(&$H[hk_bin], ($T)($VAL));\n"
    "    }\n"
    "    __syncthreads();\n"
    "    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)\n"
    "        if (hk_hist[hk_b] != ($T)0)\n"
    "            atomicAdd(&$H[hk_b], hk_hist[hk_b]);\n"
    "}";

int rw_privatized_histogram(const char *text, size_t len, const an_model *m, size_t kernel,
                            int bins, rw_result *out)
{
    static const char *const name = "privatized histogram";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (bins < 0 || bins > PT_HIST_SHARED_MAX)
        return HK_EINVAL;
    rwp_hist g;
    char reason[256];
    struct hk_buf b;
    char *head = NULL;
    hk_buf_init(&b, PT_TEXT_MAX);
    const char *why = NULL;
    if ((rc = rwp_match_histogram(text, len, m, kernel, bins, &g, reason, sizeof reason)))
        goto out;
    if (reason[0]) {
        why = reason;
        goto na;
    }
    if (strcmp(g.type, "long long") == 0) {
        why = "the counter type is not unsigned int, int, unsigned long long, float or double";
        goto na;
    }
    long nb = g.bins;
    size_t esize = strcmp(g.type, "double") == 0 || strcmp(g.type, "unsigned long long") == 0 ? 8 : 4;
    if ((size_t)nb * esize > PT_HIST_SHARED_MAX) {
        why = "the bin count does not fit the shared-memory budget (32 KiB)";
        goto na;
    }
    char nbs[32];
    snprintf(nbs, sizeof nbs, "%ld", nb);
    pt_index ix;
    memset(&ix, 0, sizeof ix);
    if (!rwp_copy_fits(ix.name, sizeof ix.name, g.index) || !rwp_copy_fits(ix.type, sizeof ix.type, g.index_type) ||
        !rwp_copy_fits(ix.bound, sizeof ix.bound, g.bound)) {
        why = "the index or bound expression is too long";   /* cannot happen: they came from a pt_index */
        goto na;
    }
    if (!(head = rwp_grid_stride_head(&ix, "hk_blocks", NULL)))
        goto nomem;
    const char *kv[] = {"MAXBLOCKS", "1024", "BINS", nbs, "T", g.type, "HEAD", head, "BIN", g.bin, "VAL", g.value,
                        "H", g.hist->name, NULL};
    if ((rc = rwl_render(&b, tpl_hist, kv)))
        goto out;
    char *desc = hk_asprintf("kernel %s: privatized histogram of %s, %ld shared %s counters per block "
                             "(HK_BINS, %s), one atomic per bin per block, grid-stride over %s",
                             f->name, g.hist->name, nb, g.type,
                             g.given ? "given" : g.guessed ? "a guess: other bins go to global memory" : "inferred",
                             g.index);
    rc = rwp_replace_body(text, len, m, f, b.data, desc, out);
    goto out;
nomem:
    rc = HK_ENOMEM;
    goto out;
na:
    rc = rwp_not_applicable(out, name, f, why);
out:
    hk_free(head);
    hk_buf_free(&b);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static const rw_param privatized_histogram_params[] = {
    {.name = "bins", .type = RW_PARAM_INT, .min = 0, .max = 32768, .def = 0},
};

static int emit_privatized_histogram(const rw_context *c, const int *p, rw_result *out)
{
    return rw_privatized_histogram(c->text, c->len, c->m, c->kernel, p[0], out);
}

const rw_descriptor rw_privatized_histogram_desc = {
    .name = "privatized_histogram",
    .summary = "a global-atomic histogram privatized per block in shared memory",
    .params = privatized_histogram_params,
    .n_params = HK_ARRAY_LEN(privatized_histogram_params),
    .flags = RW_ALGORITHM,
    .emit = emit_privatized_histogram,
};

