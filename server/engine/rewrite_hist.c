/* Per-thread byte counters for a histogram (rewrite_hist.h): rwp_match_histogram proves the
 * shape, this file checks what the counter design needs (integer counters, +1 per element,
 * at most 256 bins within 48 KiB) and renders the new body from the templates below. */
#include "engine/rewrite_hist.h"
#include "engine/rewrite_lex.h"
#include "engine/rewrite_pattern.h"

#include "core/buf.h"
#include "core/hk.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RWH_TEXT_MAX AN_TEXT_MAX_BYTES
#define RWH_MAX_BINS 256

/* The head of the new body: constants, shared arrays, the block's share of the grid, the
 * totals zeroed; then the fallback for other block sizes (shared atomics into hk_tot),
 * the counter path ($MAIN), and the merge into the global histogram. */
static const char tpl_body[] =
    "{\n"
    "    // hk rewrite: histogram with per-thread byte counters. With HK_T threads per block,\n"
    "    // thread t counts bin b in byte b % 4 of word (b / 4) * HK_T + t of hk_cnt (lane l\n"
    "    // always touches bank l): plain increments, no atomics, no bank conflicts. Before a\n"
    "    // counter can pass 255 the block adds the counters to hk_tot and clears them. Other\n"
    "    // block sizes count with shared atomics. A bin outside [0, HK_BINS) goes to global\n"
    "    // memory directly; each block adds its non-zero totals once.\n"
    "    constexpr int HK_MAX_BLOCKS = 1024;\n"
    "    constexpr int HK_BINS = $BINS;\n"
    "    constexpr int HK_T = $THREADS;\n"
    "    constexpr int HK_BQ = (HK_BINS + 3) / 4;   // bin quads: one word per quad and thread\n"
    "    static_assert(HK_T % 32 == 0 && HK_T >= 32 && HK_T <= 1024, \"HK_T: a multiple of 32 up to 1024\");\n"
    "    static_assert(HK_BINS >= 1 && HK_BINS <= 256, \"HK_BINS: 1..256\");\n"
    "    static_assert(HK_BQ * HK_T * 4 + HK_BINS * sizeof($TOT) <= 48 * 1024,\n"
    "                  \"counters and totals must fit 48 KiB of static shared memory\");\n"
    "    // the flush: HK_P threads share the HK_T columns of a quad, HK_L each (a multiple of\n"
    "    // 32 when HK_T allows, so the lane-staggered reads hit 32 different banks)\n"
    "    constexpr int HK_P = HK_T / HK_BQ < 1 ? 1 : (HK_T / HK_BQ < HK_T / 32 ? HK_T / HK_BQ : HK_T / 32);\n"
    "    constexpr int HK_L = (HK_T + HK_P - 1) / HK_P;\n"
    "    __shared__ unsigned int hk_cnt[HK_BQ * HK_T];\n"
    "    __shared__ $TOT hk_tot[HK_BINS];\n"
    "    // no min(): HIP's overloads for unsigned int are ambiguous\n"
    "    const unsigned int hk_grid = gridDim.x;\n"
    "    const unsigned int hk_blocks = hk_grid < (unsigned int)HK_MAX_BLOCKS ? hk_grid : (unsigned int)HK_MAX_BLOCKS;\n"
    "    if (blockIdx.x >= hk_blocks)\n"
    "        return;\n"
    "    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
    "    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;\n"
    "    const long long hk_n = (long long)($N);\n"
    "    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)\n"
    "        hk_tot[hk_b] = 0;\n"
    "    if (blockDim.x != HK_T || hk_nthreads != HK_T) {\n"
    "        // not the block the counters are laid out for: shared atomics\n"
    "        __syncthreads();\n"
    "        for (long long hk_i = (long long)blockIdx.x * blockDim.x + threadIdx.x; hk_i < hk_n;\n"
    "             hk_i += (long long)hk_blocks * blockDim.x) {\n"
    "            const $ITYPE $IDX = ($ITYPE)hk_i;\n"
    "            const long long hk_bin = (long long)($BIN);\n"
    "            if (hk_bin >= 0 && hk_bin < HK_BINS)\n"
    "                atomicAdd(&hk_tot[hk_bin], ($TOT)1);\n"
    "            else\n"
    "                atomicAdd(&$H[hk_bin], ($CT)1);\n"
    "        }\n"
    "    } else {\n"
    "        for (int hk_w = (int)hk_tid; hk_w < HK_BQ * HK_T; hk_w += HK_T)\n"
    "            hk_cnt[hk_w] = 0u;\n"
    "        __syncthreads();\n"
    "        // this thread's counters: byte (b & ~3) * HK_T + (b & 3) from here\n"
    "        unsigned char *const hk_c8 = reinterpret_cast<unsigned char *>(hk_cnt) + 4 * hk_tid;\n"
    "$MAIN"
    "    }\n"
    "    __syncthreads();\n"
    "    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads)\n"
    "        if (hk_tot[hk_b] != 0)\n"
    "            atomicAdd(&$H[hk_b], ($CT)hk_tot[hk_b]);\n"
    "}";

/* The flush, at a block-uniform point: every thread has stopped counting; the counters are
 * summed per bin into hk_tot (4 bins per word: the even and odd bytes accumulate as two
 * 16-bit lanes, which hold 256 columns of 255) and cleared. $IND: indentation. */
static const char tpl_flush[] =
    "$IND__syncthreads();\n"
    "$INDfor (int hk_w = (int)hk_tid; hk_w < HK_BQ * HK_P; hk_w += HK_T) {\n"
    "$IND    const int hk_q = hk_w / HK_P, hk_c0 = (hk_w % HK_P) * HK_L, hk_lane = (int)(hk_tid & 31u);\n"
    "$IND    unsigned int hk_s[4] = {0u, 0u, 0u, 0u};\n"
    "$IND    for (int hk_j0 = 0; hk_j0 < HK_L; hk_j0 += 256) {\n"
    "$IND        unsigned int hk_ev = 0u, hk_od = 0u;\n"
    "$IND        const int hk_j1 = hk_j0 + 256 < HK_L ? hk_j0 + 256 : HK_L;\n"
    "$IND        for (int hk_j = hk_j0; hk_j < hk_j1; hk_j++) {\n"
    "$IND            const int hk_c = hk_c0 + (hk_j + hk_lane) % HK_L;   // staggered by lane\n"
    "$IND            if (hk_c < HK_T) {\n"
    "$IND                const unsigned int hk_v = hk_cnt[hk_q * HK_T + hk_c];\n"
    "$IND                hk_cnt[hk_q * HK_T + hk_c] = 0u;\n"
    "$IND                hk_ev += hk_v & 0x00ff00ffu;\n"
    "$IND                hk_od += (hk_v >> 8) & 0x00ff00ffu;\n"
    "$IND            }\n"
    "$IND        }\n"
    "$IND        hk_s[0] += hk_ev & 0xffffu;\n"
    "$IND        hk_s[1] += hk_od & 0xffffu;\n"
    "$IND        hk_s[2] += hk_ev >> 16;\n"
    "$IND        hk_s[3] += hk_od >> 16;\n"
    "$IND    }\n"
    "$IND    #pragma unroll\n"
    "$IND    for (int hk_k = 0; hk_k < 4; hk_k++)\n"
    "$IND        if (hk_s[hk_k] != 0u && hk_q * 4 + hk_k < HK_BINS) {\n"
    "$IND            if (HK_P == 1)\n"
    "$IND                hk_tot[hk_q * 4 + hk_k] += hk_s[hk_k];\n"
    "$IND            else\n"
    "$IND                atomicAdd(&hk_tot[hk_q * 4 + hk_k], ($TOT)hk_s[hk_k]);\n"
    "$IND        }\n"
    "$IND}\n"
    "$IND__syncthreads();\n";

/* The byte path: bins are the values of $SRC[i] ($BT), read as uint4 from the first
 * 16-byte aligned element; the head before it and the tail after the last whole vector
 * (fewer than 16 elements each) take one element per thread of the first block. */
static const char tpl_bytes[] =
    "        const $BT *const hk_src = $SRC;\n"
    "        const long long hk_len = hk_n > 0 ? hk_n : 0;\n"
    "        long long hk_head = (long long)((16u - ((unsigned int)reinterpret_cast<unsigned long long>(hk_src) & 15u)) & 15u);\n"
    "        if (hk_head > hk_len)\n"
    "            hk_head = hk_len;\n"
    "        const long long hk_nv = (hk_len - hk_head) >> 4;   // whole uint4 vectors\n"
    "        const long long hk_tail = hk_head + hk_nv * 16;    // the elements after them\n"
    "        {\n"
    "            const long long hk_g = (long long)blockIdx.x * HK_T + hk_tid;\n"
    "            if (hk_g < hk_head) {\n"
    "$ONE_HEAD"
    "            }\n"
    "            if (hk_tail + hk_g < hk_len) {\n"
    "$ONE_TAIL"
    "            }\n"
    "        }\n"
    "        const uint4 *const hk_vec = reinterpret_cast<const uint4 *>(hk_src + hk_head);\n"
    "        const long long hk_step = (long long)hk_blocks * (2 * HK_T);   // vectors per round\n"
    "        const long long hk_rounds = (hk_nv + hk_step - 1) / hk_step;\n"
    "        // rounds between flushes: 7 * 32 bytes + head + tail = 226 counts per thread < 256\n"
    "        constexpr int HK_CHUNK = 7;\n"
    "        // two uint4 per thread and round; the next round's pair is loaded before this\n"
    "        // one's is counted (also across a flush), so 32 bytes per thread stay in flight\n"
    "        long long hk_j = (long long)blockIdx.x * (2 * HK_T) + hk_tid;\n"
    "        uint4 hk_x0 = make_uint4(0u, 0u, 0u, 0u), hk_x1 = hk_x0;\n"
    "        if (hk_j < hk_nv)\n"
    "            hk_x0 = hk_vec[hk_j];\n"
    "        if (hk_j + HK_T < hk_nv)\n"
    "            hk_x1 = hk_vec[hk_j + HK_T];\n"
    "        for (long long hk_r0 = 0;; hk_r0 += HK_CHUNK) {\n"
    "            const long long hk_r1 = hk_r0 + HK_CHUNK < hk_rounds ? hk_r0 + HK_CHUNK : hk_rounds;\n"
    "            for (long long hk_r = hk_r0; hk_r < hk_r1; hk_r++) {\n"
    "                const long long hk_jn = hk_j + hk_step;\n"
    "                uint4 hk_y0 = make_uint4(0u, 0u, 0u, 0u), hk_y1 = hk_y0;\n"
    "                if (hk_jn < hk_nv)\n"
    "                    hk_y0 = hk_vec[hk_jn];\n"
    "                if (hk_jn + HK_T < hk_nv)\n"
    "                    hk_y1 = hk_vec[hk_jn + HK_T];\n"
    "                if (hk_j < hk_nv) {\n"
    "$SIXTEEN0"
    "                }\n"
    "                if (hk_j + HK_T < hk_nv) {\n"
    "$SIXTEEN1"
    "                }\n"
    "                hk_x0 = hk_y0;\n"
    "                hk_x1 = hk_y1;\n"
    "                hk_j = hk_jn;\n"
    "            }\n"
    "$FLUSH"
    "            if (hk_r0 + HK_CHUNK >= hk_rounds)\n"
    "                break;\n"
    "        }\n";

/* The scalar path: the original bin expression per element, one element per thread and
 * round, 240 rounds between flushes. */
static const char tpl_scalar[] =
    "        const long long hk_step = (long long)hk_blocks * HK_T;   // elements per round\n"
    "        const long long hk_rounds = hk_n > 0 ? (hk_n + hk_step - 1) / hk_step : 0;\n"
    "        constexpr int HK_CHUNK = 240;   // rounds between flushes: < 256 counts per thread\n"
    "        for (long long hk_r0 = 0; hk_r0 < hk_rounds; hk_r0 += HK_CHUNK) {\n"
    "            const long long hk_r1 = hk_r0 + HK_CHUNK < hk_rounds ? hk_r0 + HK_CHUNK : hk_rounds;\n"
    "            #pragma unroll 4\n"
    "            for (long long hk_r = hk_r0; hk_r < hk_r1; hk_r++) {\n"
    "                const long long hk_i = hk_r * hk_step + (long long)blockIdx.x * HK_T + hk_tid;\n"
    "                if (hk_i < hk_n) {\n"
    "                    const $ITYPE $IDX = ($ITYPE)hk_i;\n"
    "                    const long long hk_b = (long long)($BIN);\n"
    "                    if (hk_b >= 0 && hk_b < HK_BINS)\n"
    "                        ++hk_c8[(hk_b & ~3ll) * HK_T + (hk_b & 3)];\n"
    "                    else\n"
    "                        atomicAdd(&$H[hk_b], ($CT)1);\n"
    "                }\n"
    "            }\n"
    "$FLUSH"
    "        }\n";

/* One count of the byte path: $VAL is the bin as an int expression. */
static const char tpl_count[] =
    "$IND{\n"
    "$IND    const int hk_b = (int)($VAL);\n"
    "$IND    if (hk_b >= 0 && hk_b < HK_BINS)\n"
    "$IND        ++hk_c8[(hk_b & ~3) * HK_T + (hk_b & 3)];\n"
    "$IND    else\n"
    "$IND        atomicAdd(&$H[hk_b], ($CT)1);\n"
    "$IND}\n";

/* true when value is the integer literal 1 (suffixes u, l allowed): the counters count
 * occurrences, so the original must add exactly one per element. */
static bool is_one(const char *value)
{
    if (value[0] != '1')
        return false;
    for (const char *p = value + 1; *p; p++)
        if (*p != 'u' && *p != 'U' && *p != 'l' && *p != 'L')
            return false;
    return true;
}

/* The sixteen counts of one uint4 named x (its bytes in memory order), bins converted to
 * the element type bt, indented by ind. */
static int render_sixteen(struct hk_buf *b, const char *x, const char *bt, const char *h, const char *ct,
                          const char *ind)
{
    static const char *const words[] = {"x", "y", "z", "w"};
    int rc = HK_OK;
    for (int w = 0; w < 4 && !rc; w++)
        for (int k = 0; k < 4 && !rc; k++) {
            char val[RWP_HIST_EXPR + 64];
            snprintf(val, sizeof val, "(%s)(%s.%s >> %d)", bt, x, words[w], 8 * k);
            const char *kv[] = {"IND", ind, "VAL", val, "H", h, "CT", ct, NULL};
            rc = rwl_render(b, tpl_count, kv);
        }
    return rc;
}

/* Renders the whole new body into b; g matched, bins and threads checked. */
static int render_body(struct hk_buf *b, const rwp_hist *g, long bins, int threads, const char *tot)
{
    struct hk_buf flush, main_, c0, c1, one_h, one_t;
    const char *ct = g->type, *h = g->hist->name;
    hk_buf_init(&flush, RWH_TEXT_MAX);
    hk_buf_init(&main_, RWH_TEXT_MAX);
    hk_buf_init(&c0, RWH_TEXT_MAX);
    hk_buf_init(&c1, RWH_TEXT_MAX);
    hk_buf_init(&one_h, RWH_TEXT_MAX);
    hk_buf_init(&one_t, RWH_TEXT_MAX);
    char bins_s[32], thr_s[32];
    snprintf(bins_s, sizeof bins_s, "%ld", bins);
    snprintf(thr_s, sizeof thr_s, "%d", threads);
    const char *kvf[] = {"IND", "            ", "TOT", tot, NULL};
    int rc = rwl_render(&flush, tpl_flush, kvf);
    if (rc)
        goto out;
    if (g->bytes) {
        char vh[RWP_HIST_EXPR + 32], vt[RWP_HIST_EXPR + 32];
        snprintf(vh, sizeof vh, "(%s)hk_src[hk_g]", g->byte_type);
        snprintf(vt, sizeof vt, "(%s)hk_src[hk_tail + hk_g]", g->byte_type);
        const char *kvh[] = {"IND", "                ", "VAL", vh, "H", h, "CT", ct, NULL};
        const char *kvt[] = {"IND", "                ", "VAL", vt, "H", h, "CT", ct, NULL};
        if ((rc = rwl_render(&one_h, tpl_count, kvh)) || (rc = rwl_render(&one_t, tpl_count, kvt)) ||
            (rc = render_sixteen(&c0, "hk_x0", g->byte_type, h, ct, "                    ")) ||
            (rc = render_sixteen(&c1, "hk_x1", g->byte_type, h, ct, "                    ")))
            goto out;
        const char *kvb[] = {"BT", g->byte_type, "SRC", g->bytes->name, "ONE_HEAD", one_h.data,
                             "ONE_TAIL", one_t.data, "SIXTEEN0", c0.data, "SIXTEEN1", c1.data,
                             "FLUSH", flush.data, NULL};
        rc = rwl_render(&main_, tpl_bytes, kvb);
    } else {
        const char *kvs[] = {"ITYPE", g->index_type, "IDX", g->index, "BIN", g->bin, "H", h, "CT", ct,
                             "FLUSH", flush.data, NULL};
        rc = rwl_render(&main_, tpl_scalar, kvs);
    }
    if (rc)
        goto out;
    const char *kv[] = {"BINS", bins_s, "THREADS", thr_s, "TOT", tot, "N", g->bound, "ITYPE", g->index_type,
                        "IDX", g->index, "BIN", g->bin, "H", h, "CT", ct, "MAIN", main_.data, NULL};
    rc = rwl_render(b, tpl_body, kv);
out:
    hk_buf_free(&flush);
    hk_buf_free(&main_);
    hk_buf_free(&c0);
    hk_buf_free(&c1);
    hk_buf_free(&one_h);
    hk_buf_free(&one_t);
    return rc;
}

int rw_histogram_thread_counters(const char *text, size_t len, const an_model *m, size_t kernel,
                                 int bins, int threads, rw_result *out)
{
    static const char *const name = "histogram thread counters";
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (bins < 0 || bins > RWH_MAX_BINS || threads < 32 || threads > 1024 || threads % 32 != 0)
        return HK_EINVAL;
    rwp_hist g;
    char why[1024];
    const char *reason = NULL;
    struct hk_buf b;
    rw_edits es = {0};
    hk_buf_init(&b, RWH_TEXT_MAX);
    if ((rc = rwp_match_histogram(text, len, m, kernel, bins, &g, why, sizeof why)))
        goto out;
    if (why[0]) {
        reason = why;
        goto na;
    }
    if (strcmp(g.type, "unsigned int") != 0 && strcmp(g.type, "int") != 0 &&
        strcmp(g.type, "unsigned long long") != 0) {
        snprintf(why, sizeof why, "the counter type %s is not unsigned int, int or unsigned long long "
                 "(the counts are integers; float sums would round differently)", g.type);
        reason = why;
        goto na;
    }
    if (!is_one(g.value)) {
        reason = "the added value is not the literal 1: per-thread counters count occurrences";
        goto na;
    }
    if (g.bins > RWH_MAX_BINS) {
        snprintf(why, sizeof why, "%ld bins: byte counters take at most %d bins", g.bins, RWH_MAX_BINS);
        reason = why;
        goto na;
    }
    const char *tot = strcmp(g.type, "unsigned long long") == 0 ? "unsigned long long" : "unsigned int";
    size_t tsize = strcmp(tot, "unsigned int") == 0 ? 4 : 8;
    size_t shared = (size_t)((g.bins + 3) / 4) * 4 * (size_t)threads + (size_t)g.bins * tsize;
    if (shared > RWH_SHARED_MAX) {
        snprintf(why, sizeof why, "%ld bins x %d threads of byte counters and the totals take %zu bytes, "
                 "more than the %d bytes of static shared memory", g.bins, threads, shared, RWH_SHARED_MAX);
        reason = why;
        goto na;
    }
    if ((rc = render_body(&b, &g, g.bins, threads, tot)))
        goto out;
    char *desc = hk_asprintf("kernel %s: histogram of %s with per-thread byte counters, %ld bins (HK_BINS, %s), "
                             "HK_T %d threads per block (%zu bytes of shared memory; other block sizes count "
                             "with shared atomics), %s, no atomics while counting",
                             f->name, g.hist->name, g.bins,
                             g.given ? "given" : g.guessed ? "a guess: other bins go to global memory" : "inferred",
                             threads, shared,
                             g.bytes ? "16-byte uint4 loads of the bytes, two in flight" : "the bin evaluated per element");
    if (!desc) {
        rc = HK_ENOMEM;
        goto out;
    }
    if ((rc = rwl_edits_add(&es, f->body_span.start_byte, f->body_span.end_byte, b.data))) {
        hk_free(desc);
        goto out;
    }
    rc = rwl_finish(text, len, m, f->name, &es, desc, out);
    goto out;
na:
    rc = rwl_not_applicable(out, hk_asprintf("%s not applicable to kernel %s: %s", name, f->name, reason));
out:
    rwl_edits_free(&es);
    hk_buf_free(&b);
    return rc;
}
