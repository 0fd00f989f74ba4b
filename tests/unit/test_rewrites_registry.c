/* The rewrite registry (server/rewrites/registry.h): the table itself (unique names, typed
 * parameters with valid defaults), the driver, and for every entry a kernel it cannot
 * handle, refused with a reason that names the construct that stopped it and its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "core/hk.h"
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

/* A grid-stride loop (line 3): the pattern rewrites expect one thread per element. */
static const char k_grid_stride[] =
    "__global__ void gs(const float *x, float *y, int n)\n"
    "{\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "        y[i] = 2.0f * x[i];\n"
    "}\n";

/* A double local summed (line 6): narrowing it to float would round differently. */
static const char k_double_sum[] =
    "__global__ void dsum(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    double acc = 0.0;\n"
    "    for (int k = 0; k < n; k++)\n"
    "        acc += x[k * n + i];\n"
    "    y[i] = acc;\n"
    "}\n";

/* A barrier (line 6) inside a 1D kernel over shared memory (line 3). */
static const char k_barrier[] =
    "__global__ void bar(const float *x, float *y, int n)\n"
    "{\n"
    "    __shared__ float tile[256];\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    tile[threadIdx.x] = i < n ? x[i] : 0.0f;\n"
    "    __syncthreads();\n"
    "    if (i < n)\n"
    "        y[i] = tile[255 - threadIdx.x];\n"
    "}\n";

/* A template kernel (line 1) with a costly call per element (line 6). */
static const char k_template[] =
    "template <int B>\n"
    "__global__ void tk(const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = x[i] * B;\n"
    "}\n";

/* Already bounded (line 1); no pointers; nothing to make fast. */
static const char k_bounded[] =
    "__global__ void __launch_bounds__(256) lb(int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        n = i;\n"
    "}\n";

typedef struct {
    const char *rewrite;
    const char *source;
    const char *kernel;
    int params[RW_MAX_PARAMS];
    const char *construct;   /* expected in the reason */
    int line;                /* expected line */
} refusal_case;

static const refusal_case cases[] = {
    {"launch_bounds", k_bounded, "lb", {256, 0, 0}, "__launch_bounds__", 1},
    {"restrict", k_bounded, "lb", {1, 0, 0}, "parameter list", 1},
    {"set_tunable", k_template, "tk", {0, 64, 0}, "template kernel", 1},
    {"grid_stride", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    {"vectorize", k_bounded, "lb", {4, 0, 0}, "statement", 3},
    {"readonly_loads", k_bounded, "lb", {0}, "statement", 3},
    {"unroll", k_bounded, "lb", {4, 0, 0}, "statement", 3},
    {"fast_math", k_grid_stride, "gs", {0}, "parameter list", 1},
    {"tiled_transpose", k_grid_stride, "gs", {32, 0, 0}, "grid-stride loop", 3},
    {"tiled_permute", k_grid_stride, "gs", {16, 0, 0}, "grid-stride loop", 3},
    /* y[i]: the counter read whole, no digits to reorder */
    {"digit_order", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    /* no blockIdx.y to put on adjacent threads */
    {"grid_y_lanes", k_grid_stride, "gs", {0}, "kernel body", 2},
    /* a grid-stride loop first: no thread index declared from the global thread id */
    {"spread_lanes", k_grid_stride, "gs", {0}, "kernel body", 3},
    /* the same: no thread index declared from the global thread id */
    {"column_passes", k_grid_stride, "gs", {0}, "kernel body", 3},
    {"warp_reduce", k_barrier, "bar", {0}, "__shared__ array", 3},
    {"block_reduce", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    /* no spec: no block known to be whole warps */
    {"warp_row_tree", k_grid_stride, "gs", {0}, "kernel body", 2},
    {"privatized_histogram", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    {"online_softmax", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    {"online_layernorm", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    /* a template kernel is substituted when it is a GEMM (its host function is a template): an
     * elementwise one is refused at its guarded body, which is no GEMM's */
    {"blas_substitution", k_template, "tk", {0}, "bounds check", 5},
    {"tiled_gemm", k_grid_stride, "gs", {64, 64, 8}, "grid-stride loop", 3},
    {"warp_rows", k_barrier, "bar", {0}, "bounds check", 7},
    {"grid_stride_2d", k_barrier, "bar", {0}, "__shared__ array", 3},
    /* a grid-stride loop's counter, not a local holding the x index before a bounds check */
    {"vectorize_2d", k_grid_stride, "gs", {0}, "kernel body", 2},
    {"histogram_lane_replicas", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    {"invariant_table", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    {"stencil_window", k_grid_stride, "gs", {8, 0, 0}, "grid-stride loop", 3},
    /* a grid-stride loop, not `T i = blockIdx.x * blockDim.x + threadIdx.x; if (guard) ...` */
    {"stencil_tile_1d", k_grid_stride, "gs", {0}, "statement", 3},
    {"interior_taps", k_grid_stride, "gs", {0}, "loop", 3},
    {"register_accumulators", k_grid_stride, "gs", {0}, "loop", 3},
    {"split_k_columns", k_grid_stride, "gs", {0}, "loop", 4},
    /* a grid-stride loop (gridDim.x) gives a thread elements of many columns: not a block per column */
    {"coalesced_columns", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    {"ilp_accumulators", k_grid_stride, "gs", {0}, "write", 4},
    {"double_narrowing", k_double_sum, "dsum", {0}, "arithmetic", 6},
    {"coarsen", k_barrier, "bar", {0}, "__shared__", 3},
    {"uniform_tiles", k_double_sum, "dsum", {0}, "loop", 5},
    {"uniform_tiles", k_barrier, "bar", {256, 4, 0}, "barrier", 6},
    /* a step that sums the thread's own elements: no math of the element alone */
    {"table_hoist", k_double_sum, "dsum", {0}, "loop", 5},
    {"fast_divmod", k_grid_stride, "gs", {0}, "kernel body", 2},
    {"split_item_loop", k_grid_stride, "gs", {0}, "kernel body", 3},
    /* the grid-stride loop spreads its elements over the blocks already: no block is an item */
    {"split_block_item", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    {"split_grid_partials", k_grid_stride, "gs", {0}, "store", 4},
    {"specialize_constants", k_grid_stride, "gs", {0}, "parameter", 1},
    /* a kernel with a bound keeps its author's register limit (nvcc takes one of the two) */
    {"occupancy_regs", k_bounded, "lb", {0}, "kernel head", 1},
    /* no sorted insertion cascade `if (d < b1) ... else if (d < b2) ...` */
    {"cascade_guard", k_grid_stride, "gs", {0}, "kernel body", 2},
    {"pow_small_exponent", k_grid_stride, "gs", {0}, "grid-stride loop", 3},
    /* items two at a time (by the grid), not one at a time */
    {"unroll_jam_scan", k_grid_stride, "gs", {0}, "loop step", 3},
    {"load_batching", k_barrier, "bar", {0}, "kernel body", 2},
    /* a loop that loads, without a block barrier: load_batching's, not this entry's */
    {"barrier_load_batching", k_grid_stride, "gs", {0}, "barrier", 3},
    /* the tile written before the barrier is read across it */
    {"merge_barriers", k_barrier, "bar", {0}, "barrier", 6},
    /* y[i]: the counter read whole, the trips never repeat */
    {"periodic_trips", k_grid_stride, "gs", {0}, "counter", 4},
    /* y[i] = 2.0f * x[i]: the counter read whole, no coordinates to chunk */
    {"channel_chunks", k_grid_stride, "gs", {8, 0, 0}, "coordinate", 4},
    /* chunk 0 (the rewrite picks C_K) resolves and refuses the same way */
    {"channel_chunks", k_grid_stride, "gs", {0}, "coordinate", 4},
    /* y[i]: the counter read whole, no coordinate to put across the lanes */
    {"channel_lanes", k_grid_stride, "gs", {0}, "counter", 4},
    /* 2.0f: the literal is a float already */
    {"float_literals", k_grid_stride, "gs", {0}, "kernel body", 2},
    /* a grid-stride loop whose body is one statement: no item loop to split */
    {"split_topk_scan", k_grid_stride, "gs", {0}, "query loop", 3},
    /* a grid-stride loop whose body is one statement, not a braced block: no window in it */
    {"window_lanes", k_grid_stride, "gs", {0}, "output loop", 3},
    {"window_warp", k_grid_stride, "gs", {0}, "output loop", 3},
    /* x[i]: a read along the thread index, not a gather into a row */
    {"staged_gather", k_grid_stride, "gs", {0}, "gather", 4},
    /* a block-strided loop with no loop around it: nothing to carry */
    {"register_carry", k_grid_stride, "gs", {0}, "block-strided loop", 3},
    /* no two block-strided row loops (i = threadIdx.x; i += blockDim.x): nothing stored and re-read */
    {"store_forward", k_grid_stride, "gs", {0}, "kernel body", 2},
    /* a grid-stride loop, not a block-strided row loop (i = threadIdx.x; i += blockDim.x) */
    {"block_online_softmax", k_grid_stride, "gs", {0}, "row loop", 3},
    /* no per-thread local array: nothing a guard compares against */
    {"register_threshold", k_grid_stride, "gs", {0}, "kernel body", 2},
    /* tile[threadIdx.x], tile[255 - threadIdx.x]: unit strides, no bank conflict to remove */
    {"shared_padding", k_barrier, "bar", {0}, "__shared__ array", 3},
    /* a shared array stored and read once across a barrier: no log-step scan loop over it */
    {"block_scan", k_barrier, "bar", {0}, "kernel body", 2},
    /* the first statement stores to global memory and nothing before it reads blockIdx.x
     * (k_barrier's tile staged before its barrier is fused_blocks' own class since session 41) */
    {"fused_blocks", k_grid_stride, "gs", {0}, "statement", 3},
};

/* Applicability refuses each case with the construct and its line in the reason, and the
 * driver refuses it the same way. */
static void every_entry_refuses_with_construct_and_line(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t r = 0; r < rw_registry_count(); r++) {
        const rw_descriptor *d = rw_registry_at(r);
        const refusal_case *c = NULL;
        for (size_t i = 0; i < HK_ARRAY_LEN(cases) && !c; i++)
            if (!strcmp(cases[i].rewrite, d->name))
                c = &cases[i];
        if (!c)
            fail_msg("registry entry %s has no refusal case", d->name);
        an_model *m = NULL;
        assert_int_equal(an_analyze(c->source, strlen(c->source), &m), HK_OK);
        long k = an_model_find_kernel(m, c->kernel);
        assert_true(k >= 0);
        rw_context ctx = {.text = c->source, .len = strlen(c->source), .m = m, .kernel = (size_t)k};
        rw_refusal why;
        assert_int_equal(rw_applies(d, &ctx, c->params, &why), HK_OK);
        char want[128];
        snprintf(want, sizeof want, "%s at line %d", c->construct, c->line);
        if (!strstr(why.reason, want) || why.line != c->line || strcmp(why.construct, c->construct)) {
            print_error("%s: wanted \"%s\", got construct \"%s\" line %d: %s\n", d->name, want,
                        why.construct, why.line, why.reason);
            failures++;
        }
        rw_result out;
        rw_refusal why2;
        assert_int_equal(rw_apply(d, &ctx, c->params, &out, &why2), HK_OK);
        assert_false(out.applicable);
        assert_non_null(out.description);
        assert_string_equal(why2.reason, why.reason);
        rw_result_free(&out);
        an_model_free(m);
    }
    assert_int_equal(failures, 0);
}

/* Names are unique; every default is allowed; the driver refuses unknown names and values
 * outside a parameter's set. */
static void table_and_driver(void **state)
{
    (void)state;
    for (size_t r = 0; r < rw_registry_count(); r++) {
        const rw_descriptor *d = rw_registry_at(r);
        assert_non_null(d->emit);
        assert_true(d->n_params <= RW_MAX_PARAMS);
        assert_ptr_equal(rw_find(d->name), d);
        int p[RW_MAX_PARAMS];
        char msg[128];
        assert_int_equal(rw_params_resolve(d, NULL, p, msg, sizeof msg), HK_OK);
        for (size_t i = 0; i < d->n_params; i++)
            assert_int_equal(rw_param_index(d, d->params[i].name), (int)i);
    }
    assert_null(rw_find("no_such_rewrite"));
    int p[RW_MAX_PARAMS];
    char msg[128];
    int bad[RW_MAX_PARAMS] = {3, 0, 0};
    assert_int_equal(rw_params_resolve(rw_find("vectorize"), bad, p, msg, sizeof msg), HK_EINVAL);
    assert_non_null(strstr(msg, "width = 3"));
    int gemm[RW_MAX_PARAMS] = {0, 128, 0};
    assert_int_equal(rw_params_resolve(rw_find("tiled_gemm"), gemm, p, msg, sizeof msg), HK_OK);
    assert_int_equal(p[0], 64);
    assert_int_equal(p[1], 128);
    assert_int_equal(p[2], 8);

    an_model *m = NULL;
    assert_int_equal(an_analyze(k_grid_stride, strlen(k_grid_stride), &m), HK_OK);
    rw_context ctx = {.text = k_grid_stride, .len = strlen(k_grid_stride), .m = m, .kernel = 0};
    rw_result out;
    assert_int_equal(rw_apply_named("no_such_rewrite", &ctx, NULL, &out, NULL), HK_EINVAL);
    rw_result_free(&out);
    /* an applicable rewrite through the driver: __launch_bounds__ on a kernel without one */
    rw_refusal why;
    int lb[RW_MAX_PARAMS] = {128, 0, 0};
    assert_int_equal(rw_apply_named("launch_bounds", &ctx, lb, &out, &why), HK_OK);
    assert_true(out.applicable);
    assert_non_null(strstr(out.text, "__launch_bounds__(128)"));
    assert_string_equal(why.reason, "");
    assert_int_equal(why.line, 0);
    rw_result_free(&out);
    an_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_entry_refuses_with_construct_and_line),
        cmocka_unit_test(table_and_driver),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
