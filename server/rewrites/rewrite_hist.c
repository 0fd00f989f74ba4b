/* Lane replicas for a histogram (rewrite_hist.h): rwp_match_histogram proves the shape,
 * this file checks what the replica design needs (integer counters, the replicas within
 * 48 KiB of static shared memory) and renders the new body from the templates below. */
#include "rewrites/rewrite_hist.h"
#include "rewrites/registry.h"
#include "rewrites/rewrite_lex.h"
#include "rewrites/rewrite_pattern.h"

#include "core/buf.h"
#include "core/hk.h"
#include "core/i18n.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* stored and machine-read in English; shown through hk_tr_said (docs/i18n.md) */
#define EN(id) hk_tr_in(HK_LANG_EN, HK_MSG_##id)

#define RWH_TEXT_MAX AN_TEXT_MAX_BYTES

/* The new body: constants, the replicas zeroed, the block's share of the grid along x,
 * the counting ($MAIN: the byte or the scalar path), and the merge of the replicas into
 * the global histogram. */
static const char tpl_body[] =
    "{\n" /* i18n: not for people */
    "    // hk rewrite: histogram with lane replicas. Each block keeps HK_LANES copies of the\n"
    "    // bins in shared memory, bin b of lane l in word b * HK_LANES + l, so a warp's 32\n"
    "    // increments hit 32 different banks whatever the data (hot bins cost what uniform\n"
    "    // data costs). The increments are shared atomics, exact when warps share a lane; the\n"
    "    // counters are as wide as the histogram's, so they never need a flush. A bin outside\n"
    "    // [0, HK_BINS) goes to global memory directly; each block sums its replicas per bin\n"
    "    // and adds the non-zero sums once. Any block shape: the lane is the flat thread id.\n"
    "    constexpr int HK_MAX_BLOCKS = 1024;\n"
    "    constexpr int HK_BINS = $BINS;\n"
    "    constexpr int HK_LANES = 32;\n"
    "    static_assert(HK_BINS >= 1 && HK_LANES >= 1, \"HK_BINS and HK_LANES: at least 1\");\n"
    "    static_assert(HK_BINS * HK_LANES * sizeof($REP) <= 48 * 1024,\n"
    "                  \"the replicas must fit 48 KiB of static shared memory\");\n"
    "    __shared__ $REP hk_rep[HK_BINS * HK_LANES];\n"
    "    // no min(): HIP's overloads for unsigned int are ambiguous\n"
    "    const unsigned int hk_grid = gridDim.x;\n"
    "    const unsigned int hk_blocks = hk_grid < (unsigned int)HK_MAX_BLOCKS ? hk_grid : (unsigned int)HK_MAX_BLOCKS;\n"
    "    if (blockIdx.x >= hk_blocks)\n"
    "        return;\n"
    "    const unsigned int hk_tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
    "    const unsigned int hk_nthreads = blockDim.x * blockDim.y * blockDim.z;\n"
    "    const unsigned int hk_lane = hk_tid % HK_LANES;\n"
    "    const long long hk_n = (long long)($N);\n"
    "    for (unsigned int hk_w = hk_tid; hk_w < HK_BINS * HK_LANES; hk_w += hk_nthreads)\n"
    "        hk_rep[hk_w] = 0;\n"
    "    __syncthreads();\n"
    "    // elements along x: threads along y and z repeat them, as the original's index does\n"
    "    const long long hk_gx = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    const long long hk_sx = (long long)hk_blocks * blockDim.x;\n"
    "$MAIN"
    "    __syncthreads();\n"
    "    for (unsigned int hk_b = hk_tid; hk_b < HK_BINS; hk_b += hk_nthreads) {\n"
    "        $REP hk_s = 0;\n"
    "        for (unsigned int hk_l = 0; hk_l < HK_LANES; hk_l++)   // staggered: one bank per thread\n"
    "            hk_s += hk_rep[hk_b * HK_LANES + (hk_l + hk_b) % HK_LANES];\n"
    "        if (hk_s != 0)\n"
    "            atomicAdd(&$H[hk_b], ($CT)hk_s);\n"
    "    }\n"
    "}";

/* The byte path: bins are the values of $SRC[i] ($BT), read as uint4 from the first
 * 16-byte aligned element; the head before it and the tail after the last whole vector
 * (fewer than 16 elements each) take one element per thread of the first block. */
static const char tpl_bytes[] =
    "    const $BT *const hk_src = $SRC;\n" /* i18n: not for people */
    "    const long long hk_len = hk_n > 0 ? hk_n : 0;\n"
    "    long long hk_head = (long long)((16u - ((unsigned int)reinterpret_cast<unsigned long long>(hk_src) & 15u)) & 15u);\n"
    "    if (hk_head > hk_len)\n"
    "        hk_head = hk_len;\n"
    "    const long long hk_nv = (hk_len - hk_head) >> 4;   // whole uint4 vectors\n"
    "    const long long hk_tail = hk_head + hk_nv * 16;    // the elements after them\n"
    "    if (hk_gx < hk_head) {\n"
    "$ONE_HEAD"
    "    }\n"
    "    if (hk_tail + hk_gx < hk_len) {\n"
    "$ONE_TAIL"
    "    }\n"
    "    // 16 bytes per load, 16 replica atomics per load\n"
    "    const uint4 *const hk_vec = reinterpret_cast<const uint4 *>(hk_src + hk_head);\n"
    "    for (long long hk_j = hk_gx; hk_j < hk_nv; hk_j += hk_sx) {\n"
    "        const uint4 hk_x = hk_vec[hk_j];\n"
    "$SIXTEEN"
    "    }\n";

/* The scalar path: the original bin expression per element. */
static const char tpl_scalar[] =
    "    // several loads in flight per thread: the loop is latency-bound otherwise\n" /* i18n: not for people */
    "    #pragma unroll 4\n"
    "    for (long long hk_i = hk_gx; hk_i < hk_n; hk_i += hk_sx) {\n"
    "        const $ITYPE $IDX = ($ITYPE)hk_i;\n"
    "        const long long hk_b = (long long)($BIN);\n"
    "        if (hk_b >= 0 && hk_b < HK_BINS)\n"
    "            atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], $ADD);\n"
    "        else\n"
    "            atomicAdd(&$H[hk_b], ($CT)($VAL));\n"
    "    }\n";

/* One count of the byte path: $BV is the bin as an int expression, $DECL the index's
 * declaration when the value uses it (else empty). */
static const char tpl_count[] =
    "$IND{\n" /* i18n: not for people */
    "$DECL"
    "$IND    const int hk_b = (int)($BV);\n"
    "$IND    if (hk_b >= 0 && hk_b < HK_BINS)\n"
    "$IND        atomicAdd(&hk_rep[hk_b * HK_LANES + hk_lane], $ADD);\n"
    "$IND    else\n"
    "$IND        atomicAdd(&$H[hk_b], ($CT)($VAL));\n"
    "$IND}\n";

/* What the counts of one body share. */
typedef struct {
    const rwp_hist *g;
    const char *add;    /* the replica increment: "1u", "1ull" or the converted value */
    bool value_uses_index;
} hist_ctx;

/* true when value is the integer literal 1 (suffixes u, l allowed): the increment can be
 * the constant (nvcc then emits ATOMS.POPC.INC). */
static bool is_one(const char *value)
{
    if (value[0] != '1')
        return false;
    for (const char *p = value + 1; *p; p++)
        if (*p != 'u' && *p != 'U' && *p != 'l' && *p != 'L')
            return false;
    return true;
}

/* *uses: whether expression expr (at most RWP_HIST_EXPR bytes, from rwp_hist) names the
 * identifier name, not as a member. HK_OK or HK_ENOMEM. */
static int mentions_ident(const char *expr, const char *name, bool *uses)
{
    *uses = false;
    rw_toks ts = {0};
    int rc = rwl_lex(expr, 0, (uint32_t)strlen(expr), &ts);
    for (size_t k = 0; !rc && k < ts.n && !*uses; k++)
        *uses = rwl_tok_is_ident(&ts, k, name) &&
                !(k > 0 && (rwl_tok_is(&ts, k - 1, ".") || rwl_tok_is(&ts, k - 1, "->")));
    rwl_toks_free(&ts);
    return rc;
}

/* One count of the byte path into b: the bin bv, the element's index expression elem (for
 * the index's declaration when the value uses it), indented by ind. */
static int render_count(struct hk_buf *b, const hist_ctx *c, const char *bv, const char *elem, const char *ind)
{
    char decl[3 * RWP_HIST_EXPR + 128] = "";
    if (c->value_uses_index)
        snprintf(decl, sizeof decl, "%s    const %s %s = (%s)(%s);\n", ind, c->g->index_type, c->g->index,
                 c->g->index_type, elem);
    const char *kv[] = {"IND", ind, "DECL", decl, "BV", bv, "ADD", c->add, "H", c->g->hist->name,
                        "CT", c->g->type, "VAL", c->g->value, NULL};
    return rwl_render(b, tpl_count, kv);
}

/* The sixteen counts of the uint4 hk_x (its bytes in memory order), bins converted to the
 * element type. */
static int render_sixteen(struct hk_buf *b, const hist_ctx *c)
{
    static const char *const words[] = {"x", "y", "z", "w"};
    int rc = HK_OK;
    for (int w = 0; w < 4 && !rc; w++)
        for (int k = 0; k < 4 && !rc; k++) {
            char bv[RWP_HIST_EXPR + 64], elem[64];
            snprintf(bv, sizeof bv, "(%s)(hk_x.%s >> %d)", c->g->byte_type, words[w], 8 * k);
            snprintf(elem, sizeof elem, "hk_head + hk_j * 16 + %d", 4 * w + k);
            rc = render_count(b, c, bv, elem, "        ");
        }
    return rc;
}

/* Renders the whole new body into b; g matched and checked, rep the replicas' type. */
static int render_body(struct hk_buf *b, const rwp_hist *g, const char *rep)
{
    struct hk_buf main_, sixteen, one_h, one_t;
    hk_buf_init(&main_, RWH_TEXT_MAX);
    hk_buf_init(&sixteen, RWH_TEXT_MAX);
    hk_buf_init(&one_h, RWH_TEXT_MAX);
    hk_buf_init(&one_t, RWH_TEXT_MAX);
    char bins_s[32], add[3 * RWP_HIST_EXPR + 16];
    snprintf(bins_s, sizeof bins_s, "%ld", g->bins);
    if (is_one(g->value))
        snprintf(add, sizeof add, "%s", strcmp(rep, "unsigned int") == 0 ? "1u" : "1ull");
    else if (strcmp(rep, g->type) == 0)
        snprintf(add, sizeof add, "(%s)(%s)", rep, g->value);
    else   /* int counters: the value as the original converts it, its bits as unsigned */
        snprintf(add, sizeof add, "(%s)(%s)(%s)", rep, g->type, g->value);
    hist_ctx c = {.g = g, .add = add};
    int rc = HK_OK;
    if (g->bytes) {
        if ((rc = mentions_ident(g->value, g->index, &c.value_uses_index)))
            goto out;
        char vh[RWP_HIST_EXPR + 32], vt[RWP_HIST_EXPR + 32];
        snprintf(vh, sizeof vh, "(%s)hk_src[hk_gx]", g->byte_type);
        snprintf(vt, sizeof vt, "(%s)hk_src[hk_tail + hk_gx]", g->byte_type);
        if ((rc = render_count(&one_h, &c, vh, "hk_gx", "        ")) ||
            (rc = render_count(&one_t, &c, vt, "hk_tail + hk_gx", "        ")) || (rc = render_sixteen(&sixteen, &c)))
            goto out;
        const char *kvb[] = {"BT", g->byte_type, "SRC", g->bytes->name, "ONE_HEAD", one_h.data,
                             "ONE_TAIL", one_t.data, "SIXTEEN", sixteen.data, NULL};
        rc = rwl_render(&main_, tpl_bytes, kvb);
    } else {
        const char *kvs[] = {"ITYPE", g->index_type, "IDX", g->index, "BIN", g->bin, "ADD", add,
                             "H", g->hist->name, "CT", g->type, "VAL", g->value, NULL};
        rc = rwl_render(&main_, tpl_scalar, kvs);
    }
    if (rc)
        goto out;
    const char *kv[] = {"BINS", bins_s, "REP", rep, "N", g->bound, "H", g->hist->name, "CT", g->type,
                        "MAIN", main_.data, NULL};
    rc = rwl_render(b, tpl_body, kv);
out:
    hk_buf_free(&main_);
    hk_buf_free(&sixteen);
    hk_buf_free(&one_h);
    hk_buf_free(&one_t);
    return rc;
}

int rw_histogram_lane_replicas(const char *text, size_t len, const an_model *m, size_t kernel, int bins,
                               rw_result *out)
{
    const char *name = EN(RW_HL_NAME);
    memset(out, 0, sizeof *out);
    const an_function *f;
    int rc = rwl_check_kernel(text, len, m, kernel, &f);
    if (rc)
        return rc;
    if (bins < 0 || bins > RWH_MAX_BINS)
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
        strcmp(g.type, "unsigned long long") != 0) { /* i18n: not for people */
        snprintf(why, sizeof why, EN(RW_HL_COUNTER_TYPE), g.type);
        reason = why;
        goto na;
    }
    const char *rep = strcmp(g.type, "unsigned long long") == 0 ? "unsigned long long" : "unsigned int"; /* i18n: not for people */
    size_t rsize = strcmp(rep, "unsigned int") == 0 ? 4 : 8;
    size_t shared = (size_t)g.bins * RWH_LANES * rsize;
    if (shared > RWH_SHARED_MAX) {
        snprintf(why, sizeof why, EN(RW_HL_TOO_BIG), g.bins, RWH_LANES, rep, shared, RWH_SHARED_MAX);
        reason = why;
        goto na;
    }
    if ((rc = render_body(&b, &g, rep)))
        goto out;
    /* where the bin count came from and how the data is read: one sentence each */
    static const enum hk_msg descs[3][2] = {
        {HK_MSG_RW_HL_DESC_GIVEN_BYTES, HK_MSG_RW_HL_DESC_GIVEN_ELEMENT},
        {HK_MSG_RW_HL_DESC_GUESS_BYTES, HK_MSG_RW_HL_DESC_GUESS_ELEMENT},
        {HK_MSG_RW_HL_DESC_INFERRED_BYTES, HK_MSG_RW_HL_DESC_INFERRED_ELEMENT},
    };
    char *desc = hk_asprintf(hk_tr_in(HK_LANG_EN, descs[g.given ? 0 : g.guessed ? 1 : 2][g.bytes ? 0 : 1]), f->name,
                             g.hist->name, RWH_LANES, g.bins, shared, rep);
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
    rc = rwl_not_applicable(out, hk_asprintf(EN(RW_NOT_APPLICABLE_TO), name, f->name, reason));
out:
    rwl_edits_free(&es);
    hk_buf_free(&b);
    return rc;
}

/* ---- registry descriptors (registry.h) ---- */
static const rw_param histogram_lane_replicas_params[] = {
    {.name = "bins", .type = RW_PARAM_INT, .min = 0, .max = 32768, .def = 0},
};

static int emit_histogram_lane_replicas(const rw_context *c, const int *p, rw_result *out)
{
    return rw_histogram_lane_replicas(c->text, c->len, c->m, c->kernel, p[0], out);
}

const rw_descriptor rw_histogram_lane_replicas_desc = {
    .name = "histogram_lane_replicas",
    .summary = "a histogram with 32 lane replicas of its bins per block", /* i18n: not for people */
    .params = histogram_lane_replicas_params,
    .n_params = HK_ARRAY_LEN(histogram_lane_replicas_params),
    .flags = RW_ALGORITHM,
    .emit = emit_histogram_lane_replicas,
};

