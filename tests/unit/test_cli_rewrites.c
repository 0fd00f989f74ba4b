/* `hkls rewrites`: a kernel's class and every rewrite's verdict, called in-process with
 * stdout and stderr sent to files. The kernels are the project's own suite and small
 * kernels written here; each verdict checked is one a real rewrite gives (a change in
 * applicability shows here as it would in an episode's "skills tried"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/hk.h"
#include "core/i18n.h"
#include "rewrites/registry.h"

struct run {
    int code;
    char *out, *err;
};

static char *slurp_fd(int fd)
{
    off_t n = lseek(fd, 0, SEEK_END);
    assert_true(n >= 0);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(pread(fd, b, (size_t)n, 0), n);
    b[n] = '\0';
    return b;
}

/* cli_rewrites(args) with fds 1 and 2 in temporary files. */
static void run(const char *const *args, struct run *r)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = "rewrites";
    for (size_t i = 0; args[i] && argc < 15; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    char op[] = "/tmp/hk-rw-out-XXXXXX", ep[] = "/tmp/hk-rw-err-XXXXXX";
    int ofd = mkstemp(op), efd = mkstemp(ep);
    assert_true(ofd >= 0 && efd >= 0);
    fflush(stdout);
    fflush(stderr);
    int save1 = dup(1), save2 = dup(2);
    dup2(ofd, 1);
    dup2(efd, 2);
    r->code = cli_rewrites(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(save1, 1);
    dup2(save2, 2);
    close(save1);
    close(save2);
    r->out = slurp_fd(ofd);
    r->err = slurp_fd(efd);
    close(ofd);
    close(efd);
    unlink(op);
    unlink(ep);
}

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

static const json_t *rewrite(const json_t *o, const char *name)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(o, "rewrites"), i, r)
        if (!strcmp(json_string_value(json_object_get(r, "name")), name))
            return r;
    fail_msg("no rewrite %s in the output", name);
    return NULL;
}

static json_t *run_json(const char *file, const char *kernel)
{
    struct run r;
    const char *a[] = {file, "--kernel", kernel, "--json", NULL};
    run(a, &r);
    if (r.code != 0)
        fail_msg("exit %d: %s", r.code, r.err);
    json_error_t e;
    json_t *o = json_loads(r.out, 0, &e);
    if (!o)
        fail_msg("not JSON (%s): %s", e.text, r.out);
    run_free(&r);
    return o;
}

static void saxpy_is_elementwise(void **state)
{
    (void)state;
    json_t *o = run_json(HK_SOURCE_DIR "/bench/kernels/saxpy.cu", "saxpy");
    assert_string_equal(json_string_value(json_object_get(o, "class")), "elementwise");
    assert_true(json_is_true(json_object_get(rewrite(o, "vectorize"), "applies")));
    /* a refusal names its construct and a line inside the kernel */
    const json_t *t = rewrite(o, "tiled_transpose");
    assert_false(json_is_true(json_object_get(t, "applies")));
    assert_true(json_integer_value(json_object_get(t, "line")) >= 1);
    assert_true(strlen(json_string_value(json_object_get(t, "reason"))) > 10);
    /* every rewrite of the registry has a verdict */
    assert_true(json_array_size(json_object_get(o, "rewrites")) >= 15);
    json_decref(o);
}

static void transpose_applies(void **state)
{
    (void)state;
    char path[] = "/tmp/hk-rw-transpose-XXXXXX.cu";
    int fd = mkstemps(path, 3);
    assert_true(fd >= 0);
    static const char k[] =
        "__global__ void flip(const float *in, float *out, int rows, int cols)\n"
        "{\n"
        "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (r < rows && c < cols)\n"
        "        out[c * rows + r] = in[r * cols + c];\n"
        "}\n";
    assert_int_equal(write(fd, k, sizeof k - 1), (ssize_t)(sizeof k - 1));
    close(fd);
    json_t *o = run_json(path, "flip");
    unlink(path);
    assert_string_equal(json_string_value(json_object_get(o, "class")), "transpose");
    assert_true(json_is_true(json_object_get(rewrite(o, "tiled_transpose"), "applies")));
    assert_false(json_is_true(json_object_get(rewrite(o, "warp_reduce"), "applies")));
    json_decref(o);
}

/* stencil2d: stencil_window applies and says the grid it needs (the spec's divided by 8
 * along y at its default K); a rewrite that keeps the spec's grid says nothing. */
static void stencil_names_its_grid(void **state)
{
    (void)state;
    json_t *o = run_json(HK_SOURCE_DIR "/bench/kernels/stencil2d.cu", "stencil2d");
    assert_string_equal(json_string_value(json_object_get(o, "class")), "stencil");
    const json_t *w = rewrite(o, "stencil_window");
    assert_true(json_is_true(json_object_get(w, "applies")));
    assert_string_equal(json_string_value(json_object_get(w, "grid")),
                        "the spec's grid / 8 along y");
    assert_null(json_object_get(rewrite(o, "readonly_loads"), "grid"));
    json_decref(o);
}

static void human_table(void **state)
{
    (void)state;
    struct run r;
    const char *a[] = {HK_SOURCE_DIR "/bench/kernels/saxpy.cu", "--kernel", "saxpy", NULL};
    run(a, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "kernel saxpy: class elementwise"));
    assert_non_null(strstr(r.out, "vectorize"));
    assert_non_null(strstr(r.out, "what stops it"));
    run_free(&r);
}

/* The table in zh-CN (docs/i18n.md): the headings, the verdicts and a refusal said in
 * Chinese from the English the JSON keeps (the construct and line, the rewrite's sentence:
 * tiled_transpose's on saxpy, pow_small_exponent's wrapped in "not applicable to kernel"),
 * the grid a rewrite is launched with; --json byte for byte the English run's. */
static void human_table_zh(void **state)
{
    (void)state;
    struct run en, zh, jen, jzh;
    const char *a[] = {HK_SOURCE_DIR "/bench/kernels/saxpy.cu", "--kernel", "saxpy", NULL};
    const char *j[] = {HK_SOURCE_DIR "/bench/kernels/saxpy.cu", "--kernel", "saxpy", "--json", NULL};
    run(a, &en);
    run(j, &jen);
    hk_i18n_set(HK_LANG_ZH_CN);
    run(a, &zh);
    run(j, &jzh);
    struct run st;
    const char *s[] = {HK_SOURCE_DIR "/bench/kernels/stencil2d.cu", "--kernel", "stencil2d", NULL};
    run(s, &st);
    hk_i18n_set(HK_LANG_EN);
    assert_int_equal(zh.code, 0);
    assert_non_null(strstr(en.out, "statement at line 4: it is not a 2D kernel (indices from .x and .y)"));
    assert_non_null(strstr(zh.out, "核函数 saxpy：类别 elementwise"));
    assert_non_null(strstr(zh.out, "阻止原因"));
    assert_null(strstr(zh.out, "what stops it"));
    assert_non_null(strstr(zh.out, "语句（第 4 行）：它不是二维核函数（索引来自 .x 和 .y）"));
    assert_non_null(strstr(zh.out, "语句（第 4 行）：函数体中没有 pow 或 powf 调用"));
    assert_null(strstr(zh.out, "no pow or powf call"));
    assert_non_null(strstr(st.out, "（以 bench spec 的网格 / 8（沿 y 方向） 启动）"));
    assert_string_equal(jen.out, jzh.out);
    run_free(&en);
    run_free(&zh);
    run_free(&jen);
    run_free(&jzh);
    run_free(&st);
}

/* Whether line (up to its newline) holds three English words in a row ("is not atomic"):
 * a sentence a zh-CN user would read in English. Names, numbers and key=value are not
 * words. */
static bool english_run(const char *line)
{
    int run = 0;
    for (const char *p = line; *p && *p != '\n';) {
        while (*p == ' ')
            p++;
        const char *w = p;
        while (*p && *p != ' ' && *p != '\n')
            p++;
        size_t n = (size_t)(p - w);
        bool word = n >= 2 && ((w[0] >= 'a' && w[0] <= 'z') || (w[0] >= 'A' && w[0] <= 'Z'));
        for (size_t i = 1; word && i < n; i++)
            word = w[i] >= 'a' && w[i] <= 'z';
        run = word ? run + 1 : 0;
        if (run >= 3)
            return true;
    }
    return false;
}

/* The kernel model's near misses in zh-CN (session 36), on the model tests' own kernels:
 * the class summary's "near CLASS: line N: why" said in Chinese after the names and
 * numbers, no English sentence left on that line; --json keeps the English. */
static void near_zh(void **state)
{
    (void)state;
    static const struct { const char *file, *kernel, *want; } cases[] = {
        {"class_misc.cu", "softmax_unsafe", "接近 softmax：第 306 行：指数和（第 306 行）没有减去行最大值"},
        {"class_misc.cu", "hist_racy", "的索引依赖数据，但不是原子操作"},
        {"class_misc.cu", "gather_dot", "通过从内存读取的值间接访问）：这是带内层循环的映射，不是归约"},
        {"class_misc.cu", "mix_channels", "被多个输出共用"},
        {"class_misc.cu", "copy_2d", "搬移元素，但两侧在 threadIdx.x 上的步长相同"},
        {"class_gemm_tiled.cu", "tiled_skip", "有分块被跳过或被读取两次"},
        {"class_gemm_tiled.cu", "tiled_late_fill", "每次迭代读到的是上一个分块"},
        {"class_gemm.cu", "gemm_bad_index", "的仿射函数"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, HK_SOURCE_DIR "/tests/data/model/%s", cases[i].file);
        const char *a[] = {path, "--kernel", cases[i].kernel, NULL};
        struct run en, zh;
        run(a, &en);
        hk_i18n_set(HK_LANG_ZH_CN);
        run(a, &zh);
        hk_i18n_set(HK_LANG_EN);
        assert_int_equal(zh.code, 0);
        /* the summary is the second line */
        const char *sum_en = strchr(en.out, '\n'), *sum_zh = strchr(zh.out, '\n');
        assert_non_null(sum_en);
        assert_non_null(sum_zh);
        if (!strstr(sum_en, " | near ") || !strstr(sum_zh, cases[i].want) || english_run(sum_zh + 1))
            fail_msg("%s: summary\n%.300s\nin zh-CN\n%.400s", cases[i].kernel, sum_en + 1, sum_zh + 1);
        /* warp_reduce's refusal: the text matcher's reason, then the model's (a near
         * miss, or the class it reads), joined by "; " */
        const char *wr = strstr(zh.out, "\n  warp_reduce ");
        assert_non_null(wr);
        if (english_run(wr + 1))
            fail_msg("%s: warp_reduce's row in zh-CN\n%.600s", cases[i].kernel, wr + 1);
        run_free(&en);
        run_free(&zh);
    }
    json_t *o = run_json(HK_SOURCE_DIR "/tests/data/model/class_misc.cu", "softmax_unsafe");
    hk_i18n_set(HK_LANG_ZH_CN);
    json_t *z = run_json(HK_SOURCE_DIR "/tests/data/model/class_misc.cu", "softmax_unsafe");
    hk_i18n_set(HK_LANG_EN);
    assert_non_null(strstr(json_string_value(json_object_get(z, "summary")),
                           "near softmax: line 306: the sum of exponentials (line 306) has no row maximum "
                           "subtracted"));
    assert_true(json_equal(o, z));
    json_decref(o);
    json_decref(z);
}

/* One refusal row of `hkls rewrites` on a kernel of our own, in English and in zh-CN. */
typedef struct {
    const char *kernel, *rewrite, *en, *zh;
} refusal_row;

/* For each case: the English row holds its English reason, the zh-CN row its Chinese one
 * and no English sentence. */
static void refusal_rows_zh(const char *path, const refusal_row *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *a[] = {path, "--kernel", cases[i].kernel, NULL};
        struct run en, zh;
        run(a, &en);
        hk_i18n_set(HK_LANG_ZH_CN);
        run(a, &zh);
        hk_i18n_set(HK_LANG_EN);
        assert_int_equal(en.code, 0);
        assert_int_equal(zh.code, 0);
        char head[64];
        snprintf(head, sizeof head, "\n  %s ", cases[i].rewrite);
        const char *re = strstr(en.out, head), *rz = strstr(zh.out, head);
        assert_non_null(re);
        assert_non_null(rz);
        const char *ee = strchr(re + 1, '\n'), *ez = strchr(rz + 1, '\n');
        int le = ee ? (int)(ee - re) : (int)strlen(re), lz = ez ? (int)(ez - rz) : (int)strlen(rz);
        char *row_en = strndup(re + 1, (size_t)le - 1), *row_zh = strndup(rz + 1, (size_t)lz - 1);
        if (!strstr(row_en, cases[i].en) || !strstr(row_zh, cases[i].zh) || english_run(row_zh))
            fail_msg("%s, %s:\n%s\nin zh-CN\n%s", cases[i].kernel, cases[i].rewrite, row_en, row_zh);
        free(row_en);
        free(row_zh);
        run_free(&en);
        run_free(&zh);
    }
}

/* The split rewrites' refusals in zh-CN (session 37: rewrite_splitk.c, rewrite_split.c,
 * rewrite_gsplit.c, rewrite_topk.c in the message table), on kernels of our own that each
 * refuses: the row holds the Chinese reason and no English sentence, the English row its
 * English one; the grids their descriptors launch with are said too. */
static void split_refusals_zh(void **state)
{
    (void)state;
    static const refusal_row cases[] = {
        {"colsum_tri", "split_k_columns", "loop bound at line 12: the bound `j` depends on the column `j`",
         "循环边界（第 12 行）：边界 `j` 依赖于列 `j`"},
        {"nearest_le", "split_k_columns", "write at line 46: a second write in the sum loop, to `bi`",
         "写操作（第 46 行）：求和循环中有第二处写入，写到 `bi`（只允许一个求和写入）"},
        {"rows_scale_break", "split_item_loop", "break at line 24: a break leaves the thread's later iterations",
         "break（第 24 行）：break 会跳过该线程后续的迭代，而这些现在由其他线程块执行"},
        {"colsum_tri", "split_item_loop", "kernel body at line 9: no loop over the items by block",
         "核函数体（第 9 行）：没有按线程块遍历数据项的循环"},
        {"rows_scale_break", "split_block_item", "break at line 24: a break leaves",
         "break（第 24 行）：break 会跳过该线程后续的迭代"},
        {"gs_twice", "split_block_item", "grid-stride loop at line 32: a loop strided over the whole grid",
         "网格跨步循环（第 32 行）：按整个网格跨步的循环：其迭代已经分布到各线程块，没有线程块对应单个数据项"},
        {"gs_twice", "split_grid_partials", "store at line 33: the grid-stride loop writes b; only per-thread",
         "写入（第 33 行）：网格跨步循环写入 b；只有每线程的合并才能拆分"},
        {"colsum_tri", "split_grid_partials", "kernel body at line 9: no grid-stride loop along x",
         "核函数体（第 9 行）：没有沿 x 方向的网格跨步循环"},
        /* nearest_le's `<=` (no cascade) takes the guarded form since session 38 */
        {"nearest_rmw", "split_topk_scan", "update at line 60: `out` is read and stored by the update",
         "更新（第 60 行）：更新既读取又存储 `out`：一个查询的 P 个通道各自执行它"},
        {"colsum_tri", "split_topk_scan", "statement before the query loop at line 10: only declarations",
         "查询循环之前的语句（第 10 行）：它之前只允许有声明和 `if (...) return;`"},
    };
    refusal_rows_zh(HK_TEST_DATA "/rewrite_i18n/split_refusals.cu", cases, sizeof cases / sizeof cases[0]);
    /* the grids the search launches them with (--json's "grid", said by the table row) */
    static const struct { const char *rewrite, *zh; } grids[] = {
        {"split_k_columns", "SM 数整数倍的网格（优化技能的 blocks_per_sm），不少于 ceil(columns / 32) 个线程块"},
        {"split_block_item", "bench spec 的网格沿 y 方向乘以每个数据项的部分数（由 bench spec 的启动配置和 `waves` 得出）"},
        {"split_grid_partials", "bench spec 的网格乘以 S（优化技能的 blocks_per_sm；低于 bench spec 网格的两倍时运行原始版本）"},
        {"split_topk_scan", "bench spec 的网格沿 x 方向乘以 `parts`"},
    };
    for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++) {
        const rw_descriptor *d = rw_find(grids[i].rewrite);
        assert_non_null(d);
        assert_non_null(d->launch);
        char *zh = hk_tr_said(HK_LANG_ZH_CN, d->launch);
        if (!zh || strcmp(zh, grids[i].zh))
            fail_msg("%s's grid\n%s\nsaid as\n%s", grids[i].rewrite, d->launch, zh ? zh : "(nothing)");
        hk_free(zh);
    }
}

/* Session 38's files (grid_stride_2d, uniform_tiles, coalesced_columns, coarsen,
 * ilp_accumulators, block_reduce, staged_gather): their rows in zh-CN on kernels written
 * for it */
static void s38_refusals_zh(void **state)
{
    (void)state;
    static const refusal_row cases[] = {
        {"add_rows_band", "grid_stride_2d", "bounds check at line 8: the bounds check is not `r < R && c < C`",
         "边界检查（第 8 行）：边界检查不是 `r < R && c < C`（对每个索引的简单比较）"},
        {"row_means_2d", "grid_stride_2d", "loop at line 18: the per-element code loops",
         "循环（第 18 行）：逐元素代码中有循环（每个元素读取一行、一列或一个窗口"},
        {"nearest_point", "uniform_tiles", "loop at line 63: qx (read at line 64) is written by the kernel",
         "循环（第 63 行）：qx（第 64 行读取）会被核函数写入：分块中会留下过时的值"},
        {"strided_dot", "uniform_tiles", "loop at line 37: not a counted loop",
         "循环（第 37 行）：不是计数循环 `for (v = start; v < bound; ++v)`"},
        {"col_sums_two", "coalesced_columns", "accumulator at line 75: a second accumulator (acc2)",
         "累加器（第 75 行）：有第二个累加器（acc2）：不是单一的列求和"},
        {"scale_shfl", "coalesced_columns", "store at line 30: the store to y is not at the block's column",
         "存储（第 30 行）：对 y 的存储不在线程块对应的列（blockIdx.x）上：不是每列一个线程块"},
        {"scale_shfl", "coarsen", "warp intrinsic at line 29: a warp intrinsic exchanges values between lanes",
         "线程束内建函数（第 29 行）：线程束内建函数在各 lane 之间交换数据"},
        {"nearest_point", "coarsen", "store at line 65: the element of qx written does not come from threadIdx.x",
         "存储（第 65 行）：写入的 qx 元素不是由 threadIdx.x 决定的（每个线程都写它：这是归约，而不是逐元素存储）"},
        {"strided_dot", "ilp_accumulators", "accumulator at line 39: `acc *= ...` is not a sum",
         "累加器（第 39 行）：`acc *= ...` 不是求和（+=、-=、x = x + e、x = fmaf(a, b, x)）"},
        {"col_sums_two", "ilp_accumulators", "write at line 78: `acc2 +=` is a second write in the sum loop",
         "写操作（第 78 行）：`acc2 +=` 是求和循环中的第二处写入，且不是写入 `acc`"},
        {"block_sum_warp_sync", "block_reduce", "line 51: the tree loop has no barrier between its levels",
         "第 51 行：归约树循环的各层之间没有同步屏障（不改写线程束同步的归约树）"},
        {"gather_rows_sync", "staged_gather", "barrier at line 95: `__syncthreads` in the loop",
         "同步屏障（第 95 行）：循环中的 `__syncthreads`：网格被划分后，线程执行的迭代会改变"},
    };
    refusal_rows_zh(HK_TEST_DATA "/rewrite_i18n/s38_refusals.cu", cases, sizeof cases / sizeof cases[0]);
}

/* Session 39's files (load_batching and barrier_load_batching, unroll_jam_scan,
 * double_narrowing, invariant_table, digit_order, register_threshold, merge_barriers,
 * table_hoist, histogram_lane_replicas, the grid-stride loop reader of split_topk_scan and
 * window_lanes): their rows in zh-CN on kernels written for it */
static void s39_refusals_zh(void **state)
{
    (void)state;
    static const refusal_row cases[] = {
        {"scale_warp_sync", "load_batching", "barrier at line 8: `__syncwarp` in the loop: only a block barrier",
         "同步屏障（第 8 行）：循环中的 `__syncwarp`：只有线程块同步屏障（`__syncthreads`）能让各次迭代的循环体仍处在相同的同步屏障之间"},
        {"find_first_neg", "load_batching", "early exit at line 19: `break` leaves the loop other than as",
         "提前退出（第 19 行）：`break` 以循环体顶层 `if (c) break;` 以外的方式跳出循环（批量执行的迭代会越过它）"},
        {"find_first_neg", "barrier_load_batching", "barrier at line 15: no `__syncthreads` in the loop",
         "同步屏障（第 15 行）：循环中没有 `__syncthreads`（没有线程块同步屏障的循环由 load_batching 处理）"},
        {"copy_in_place", "load_batching", "loop at line 26: its body loads nothing from a buffer the kernel never writes",
         "循环（第 26 行）：在任何可能跳过本次迭代剩余部分的语句之前，它的循环体没有从核函数从不写入的缓冲区加载数据"},
        {"nearest_sync", "unroll_jam_scan", "barrier at line 41: a barrier or warp operation in the item loop",
         "同步屏障（第 41 行）：数据项循环中有同步屏障或线程束操作：每个线程会在另一个数据项处遇到它"},
        {"running_best", "unroll_jam_scan", "value declaration at line 52: `d` reads `best`, which the loop body writes",
         "值声明（第 52 行）：`d` 读取 `best`，而循环体会写入它（第 54 行）：该值不只取决于数据项本身"},
        {"sum_in_double", "double_narrowing", "arithmetic at line 65: `s` is updated in place (`+=`)",
         "算术运算（第 65 行）：`s` 被原地更新（`+=`）：算术运算在 float 中的舍入不同"},
        {"phase_per_thread", "invariant_table", "thread index at line 71: `w`, a function of `j`, cannot be tabulated",
         "线程索引（第 71 行）：`w` 是 `j` 的函数，但无法制成表：`threadIdx`：它使用了线程或线程块索引（每个线程不同）"},
        {"phase_cheap", "invariant_table", "statement at line 80: `w` depends on `j` but calls no costly math function",
         "语句（第 80 行）：`w` 依赖于 `j`，但没有调用开销大的数学函数（pow、exp、log、sin、cos、tan、erf...）：重新计算比查表更省"},
        {"scatter_digits", "digit_order", "atomic at line 92: `atomicAdd`: another element may combine into the same place",
         "原子操作（第 92 行）：`atomicAdd`：另一个元素可能合并到同一位置"},
        {"best_leaks", "register_threshold", "array use at line 103: the array is used in the loop outside a guard's",
         "数组的使用（第 103 行）：该数组在循环中守卫条件的表达式及其 then 分支之外被使用：它的元素可能在不刷新副本的地方被修改"},
        {"mirror_tile", "merge_barriers", "barrier at line 113: __shared__ `s` is written on one side",
         "同步屏障（第 113 行）：__shared__ `s` 在一侧被写入，在另一侧被访问（其他每个同步屏障也都是必需的）"},
        {"nearest_sync", "table_hoist", "loop at line 35: no step computes a math function of values",
         "循环（第 35 行）：没有哪一步在对所有线程都相同的值（循环计数器、参数和没有任何代码写入的表）上计算数学函数"},
        {"hist_float", "histogram_lane_replicas", "parameter list at line 119: the counter type float is not",
         "参数列表（第 119 行）：计数器类型 float 不是 unsigned int、int 或 unsigned long long（整数求和以任何顺序都是精确的；浮点求和的舍入会不同）"},
        {"knn_single", "split_topk_scan", "query loop at line 128: not a grid-stride loop over x",
         "查询循环（第 128 行）：不是沿 x 方向的网格跨步循环（`i = blockIdx.x * blockDim.x + threadIdx.x; ...; i += blockDim.x * gridDim.x`）"},
        {"knn_single", "window_lanes", "output loop at line 128: not a grid-stride loop over x",
         "输出循环（第 128 行）：不是沿 x 方向的网格跨步循环（`i = blockIdx.x * blockDim.x + threadIdx.x; ...; i += blockDim.x * gridDim.x`）"},
    };
    refusal_rows_zh(HK_TEST_DATA "/rewrite_i18n/s39_refusals.cu", cases, sizeof cases / sizeof cases[0]);
}

static void bad_input(void **state)
{
    (void)state;
    struct run r;
    const char *no_kernel[] = {HK_SOURCE_DIR "/bench/kernels/saxpy.cu", NULL};
    run(no_kernel, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--kernel"));
    run_free(&r);
    const char *missing[] = {"/nonexistent/k.cu", "--kernel", "k", NULL};
    run(missing, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "/nonexistent/k.cu"));
    run_free(&r);
    const char *unknown[] = {HK_SOURCE_DIR "/bench/kernels/saxpy.cu", "--kernel", "nope", NULL};
    run(unknown, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "no kernel named nope"));
    run_free(&r);
    const char *badspec[] = {HK_SOURCE_DIR "/bench/kernels/saxpy.cu", "--kernel", "saxpy",
                             "--spec", "/nonexistent/s.json", NULL};
    run(badspec, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
    const char *flag[] = {"--frobnicate", NULL};
    run(flag, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
}

/* --emit prints the source as a rewrite leaves the kernel (how issue 13's rejected warp_rows
 * candidate was read and replayed); a rewrite that does not apply says why, exit 1. */
static void emit_text(void **state)
{
    (void)state;
    struct run r;
    const char *a[] = {HK_TEST_DATA "/rewrite_rows/layernorm_rows.cu", "--kernel", "norm_two_pass",
                       "--emit", "warp_rows", NULL};
    run(a, &r);
    if (r.code != 0)
        fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "hk rewrite (warp_rows)"));
    assert_non_null(strstr(r.out, "__shfl_xor_sync"));
    /* the kernel's own two-pass variance is kept; the other kernel is untouched */
    assert_non_null(strstr(r.out, "dev2 += d * d;"));
    assert_non_null(strstr(r.out, "total2 += v[j] * v[j];"));
    run_free(&r);
    const char *no[] = {HK_TEST_DATA "/rewrite_rows/layernorm_rows.cu", "--kernel", "norm_two_pass",
                        "--emit", "tiled_transpose", NULL};
    run(no, &r);
    assert_int_equal(r.code, 1);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "tiled_transpose does not apply: "));
    run_free(&r);
    const char *unknown[] = {HK_TEST_DATA "/rewrite_rows/layernorm_rows.cu", "--kernel",
                             "norm_two_pass", "--emit", "nope", NULL};
    run(unknown, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "no rewrite named nope"));
    run_free(&r);
}

/* --param sets the emitted rewrite's parameters (warp_rows' row_threads: a block per row); a
 * value the rewrite refuses says so (exit 1), a name it does not have or a bad --device is a
 * usage error (exit 2). */
static void emit_params(void **state)
{
    (void)state;
    struct run r;
    const char *a[] = {HK_TEST_DATA "/rewrite_rows/blockrows.cu", "--kernel", "soft_llmc", "--emit", "warp_rows",
                       "--param", "row_threads=512", NULL};
    run(a, &r);
    if (r.code != 0)
        fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "hk rewrite (warp_rows, row_threads 512): one block per row"));
    assert_non_null(strstr(r.out, "__syncthreads();"));
    run_free(&r);
    const char *bad[] = {HK_TEST_DATA "/rewrite_rows/blockrows.cu", "--kernel", "soft_llmc", "--emit", "warp_rows",
                         "--param", "row_threads=48", NULL};
    run(bad, &r);
    assert_int_equal(r.code, 1);
    assert_non_null(strstr(r.err, "row_threads = 48 is not allowed"));
    run_free(&r);
    const char *other[] = {HK_TEST_DATA "/rewrite_rows/blockrows.cu", "--kernel", "soft_llmc", "--emit",
                           "warp_rows", "--param", "width=4", NULL};
    run(other, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--param width=4"));
    run_free(&r);
    const char *dev[] = {HK_TEST_DATA "/rewrite_rows/blockrows.cu", "--kernel", "soft_llmc", "--device", "132",
                         "--emit", "warp_rows", NULL};
    run(dev, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--device wants SMS,WARPS_PER_SM"));
    run_free(&r);
    /* in zh-CN (issue 14): the same refusal and the help in Chinese, the exit code the same */
    hk_i18n_set(HK_LANG_ZH_CN);
    run(dev, &r);
    struct run help;
    const char *h[] = {"--help", NULL};
    run(h, &help);
    hk_i18n_set(HK_LANG_EN);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "hkls rewrites：--device 应为 SMS,WARPS_PER_SM（例如 132,64）"));
    assert_int_equal(help.code, 0);
    assert_non_null(strstr(help.out, "用法：hkls rewrites FILE --kernel NAME"));
    assert_null(strstr(help.out, "usage:"));
    run_free(&help);
    run_free(&r);
    /* a parameter means nothing to the listing, which is at every rewrite's defaults */
    const char *listing[] = {HK_TEST_DATA "/rewrite_rows/blockrows.cu", "--kernel", "soft_llmc", "--param",
                             "row_threads=512", NULL};
    run(listing, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--param needs --emit REWRITE"));
    run_free(&r);
    const char *many[] = {HK_TEST_DATA "/rewrite_rows/blockrows.cu", "--kernel", "soft_llmc", "--emit", "warp_rows",
                          "--param", "row_threads=512", "--param", "row_threads=512", "--param",
                          "row_threads=512", "--param", "row_threads=512", NULL};
    run(many, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "at most 3 --param"));
    run_free(&r);
}

/* --emit A+B prints B applied to A's output (the search's stacked candidate): the tiles, then
 * the full tile's loop jammed; REWRITE.N=V sets the second's parameter; a second that refuses
 * the first's output says so (exit 1); a malformed stack is a usage error. */
static void emit_stacked(void **state)
{
    (void)state;
    struct run r;
    const char *a[] = {HK_TEST_DATA "/skills/kernels/uniform_tiles.cu", "--kernel", "nearest", "--emit",
                       "uniform_tiles+unroll_jam_scan", "--param", "unroll_jam_scan.unroll=2", NULL};
    run(a, &r);
    if (r.code != 0)
        fail_msg("exit %d: %s", r.code, r.err);
    assert_non_null(strstr(r.out, "__shared__"));
    assert_non_null(strstr(r.out, "hk: unroll_jam_scan: 2 items' values first"));
    assert_non_null(strstr(r.out, "= hk_r0[hk_uj_k1];"));
    run_free(&r);
    const char *back[] = {HK_TEST_DATA "/skills/kernels/uniform_tiles.cu", "--kernel", "nearest", "--emit",
                          "unroll_jam_scan+uniform_tiles", NULL};
    run(back, &r);
    assert_int_equal(r.code, 1);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "uniform_tiles does not apply on the output of unroll_jam_scan: "));
    run_free(&r);
    const char *trailing[] = {HK_TEST_DATA "/skills/kernels/uniform_tiles.cu", "--kernel", "nearest", "--emit",
                              "uniform_tiles+", NULL};
    run(trailing, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "not REWRITE or REWRITE+REWRITE"));
    run_free(&r);
    const char *stray[] = {HK_TEST_DATA "/skills/kernels/uniform_tiles.cu", "--kernel", "nearest", "--emit",
                           "uniform_tiles+unroll_jam_scan", "--param", "vectorize.width=4", NULL};
    run(stray, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--param vectorize.width=4: no rewrite of --emit"));
    run_free(&r);
}

/* --proposals: the search's first N candidates under the shipped skills' plan, each reported
 * at the time --time gives it. stencil2d, memory-bound, a budget of 4: with nothing faster
 * than the baseline, the first four skills' first choices; with grid_stride_2d at 8 blocks/SM
 * leading (the H200's 1.32x), its 64 and 16 blocks/SM follow it within the budget. */
static void proposals(void **state)
{
    (void)state;
    struct run r;
    const char *flat[] = {HK_SOURCE_DIR "/bench/kernels/stencil2d.cu", "--kernel", "stencil2d", "--spec",
                          HK_SOURCE_DIR "/bench/kernels/stencil2d.bench.json", "--proposals", "4", "--class",
                          "memory-bound", "--device", "132,64", "--json", NULL};
    run(flat, &r);
    assert_int_equal(r.code, 0);
    json_error_t e;
    json_t *o = json_loads(r.out, 0, &e);
    assert_non_null(o);
    assert_int_equal(json_array_size(o), 4);
    bool gs64 = false;
    for (size_t i = 0; i < 4; i++) {
        const json_t *c = json_array_get(o, i);
        assert_int_equal(json_integer_value(json_object_get(c, "id")), (json_int_t)i + 1);
        assert_int_equal(json_integer_value(json_object_get(c, "phase")), 1);
        gs64 |= strstr(json_string_value(json_object_get(c, "description")), "64 blocks/SM") != NULL;
    }
    assert_false(gs64);
    json_decref(o);
    run_free(&r);
    const char *lead[] = {HK_SOURCE_DIR "/bench/kernels/stencil2d.cu", "--kernel", "stencil2d", "--spec",
                          HK_SOURCE_DIR "/bench/kernels/stencil2d.bench.json", "--proposals", "4", "--class",
                          "memory-bound", "--device", "132,64", "--time",
                          "grid_stride_2d, block 256, 8 blocks/SM=0.75", NULL};
    run(lead, &r);
    assert_int_equal(r.code, 0);
    assert_non_null(strstr(r.out, "kernel stencil2d, memory-bound, budget 4:"));
    assert_non_null(strstr(r.out, "8 blocks/SM (skill sm90-grid-stride-2d-coalesce)  [0.75]"));
    assert_non_null(strstr(r.out, "  3: grid_stride_2d, block 256, 64 blocks/SM"));
    assert_non_null(strstr(r.out, "  4: grid_stride_2d, block 256, 16 blocks/SM"));
    assert_null(strstr(r.out, "  5:"));
    run_free(&r);
    /* usage: --proposals needs --spec; --class and --time need --proposals */
    const char *nospec[] = {HK_SOURCE_DIR "/bench/kernels/stencil2d.cu", "--kernel", "stencil2d", "--proposals",
                            "4", NULL};
    run(nospec, &r);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "--spec"));
    run_free(&r);
    const char *noprop[] = {HK_SOURCE_DIR "/bench/kernels/stencil2d.cu", "--kernel", "stencil2d", "--class",
                            "memory-bound", NULL};
    run(noprop, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
    const char *badclass[] = {HK_SOURCE_DIR "/bench/kernels/stencil2d.cu", "--kernel", "stencil2d", "--class",
                              "fast", NULL};
    run(badclass, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
    const char *badtime[] = {HK_SOURCE_DIR "/bench/kernels/stencil2d.cu", "--kernel", "stencil2d", "--time",
                             "vectorize", NULL};
    run(badtime, &r);
    assert_int_equal(r.code, 2);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(saxpy_is_elementwise),
        cmocka_unit_test(transpose_applies),
        cmocka_unit_test(stencil_names_its_grid),
        cmocka_unit_test(human_table),
        cmocka_unit_test(human_table_zh),
        cmocka_unit_test(near_zh),
        cmocka_unit_test(split_refusals_zh),
        cmocka_unit_test(s38_refusals_zh),
        cmocka_unit_test(s39_refusals_zh),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(emit_text),
        cmocka_unit_test(emit_params),
        cmocka_unit_test(emit_stacked),
        cmocka_unit_test(proposals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
