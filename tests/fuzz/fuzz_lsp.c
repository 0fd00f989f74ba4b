/* libFuzzer target over the whole input path of the server: Content-Length framing,
 * JSON-RPC decoding, dispatch through the state gate, and text edits with position
 * conversion and incremental reparses. Oracles: no crash or sanitizer report, every
 * byte the server writes is a valid JSON-RPC message, and no allocation outlives the
 * server. Compiler processes are disabled.
 *
 * Input layout: byte 0 selects a preamble (bit 0: the harness initializes the server
 * and opens a document first, so the fuzzer reaches edits quickly; bit 1: utf-8
 * instead of utf-16); the rest is fed to the framer in chunks whose sizes come from
 * byte 0's upper bits, to exercise split reads. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <uv.h>

#include "core/hk.h"
#include "core/log.h"
#include "lsp/lsp.h"
#include "transport/transport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink(const char *body, size_t len, void *ud)
{
    (void)ud;
    json_error_t e;
    json_t *m = json_loadb(body, len, JSON_ALLOW_NUL, &e);
    if (!json_is_object(m) || !json_is_string(json_object_get(m, "jsonrpc"))) {
        fprintf(stderr, "server wrote something that is not a JSON-RPC message: %.*s\n",
                (int)(len > 500 ? 500 : len), body);
        abort();
    }
    json_decref(m);
    return HK_OK;
}

static void on_msg(const char *b, size_t len, void *ud) { lsp_server_feed(ud, b, len); }
static void on_err(int err, const char *msg, void *ud) { lsp_server_framing_error(ud, err, msg); }

static void feed_body(lsp_server *s, const char *body)
{
    lsp_server_feed(s, body, strlen(body));
}

static const char DOC[] =
    "// \\u6ce8\\u91ca \\ud83d\\ude00 comment\\n"
    "#define TILE 16\\n"
    "__device__ float sq(float v) { return v * v; }\\n"
    "template <int B> __global__ void __launch_bounds__(B) k(const float *__restrict__ x, "
    "float *y, int n) {\\n"
    "  __shared__ float t[TILE][TILE + 1];\\n"
    "  int i = blockIdx.x * B + threadIdx.x;\\n"
    "  if (i < n) y[i] = sq(x[i]);\\n"
    "}\\n"
    "void run(float *x, float *y, int n, cudaStream_t s) {\\n"
    "  k<256><<<(n + 255) / 256, 256, 0, s>>>(x, y, n);\\n"
    "  hipLaunchKernelGGL(k<128>, dim3(n / 128), dim3(128), 0, 0, x, y, n);\\n"
    "}\\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool once;
    if (!once) {
        once = true;
        hk_alloc_init_json();
        /* Logging is not under test; HK_FUZZ_LOG=1 shows it on stderr. */
        hk_log_open(getenv("HK_FUZZ_LOG") ? NULL : "/dev/null", HK_LOG_DEBUG);
        /* A first run warms up whatever the libraries cache for the whole process, so
         * the leak check below compares like with like. */
        static const uint8_t warm[] = {1, '{', '}'};
        LLVMFuzzerTestOneInput(warm, sizeof warm);
    }
    if (size == 0)
        return 0;
    long live_before = hk_alloc_live();
    uv_loop_t loop;
    uv_loop_init(&loop);
    lsp_server *s = NULL;
    if (lsp_server_new(&loop, sink, NULL, &s)) {
        uv_loop_close(&loop);
        return 0;
    }
    lsp_server_disable_compiles(s);
    uint8_t mode = data[0];
    if (mode & 1) {
        char init[512];
        snprintf(init, sizeof init,
                 "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                 "\"capabilities\":{\"general\":{\"positionEncodings\":[\"%s\"]},"
                 "\"textDocument\":{\"documentSymbol\":{\"hierarchicalDocumentSymbolSupport\":%s},"
                 "\"hover\":{\"contentFormat\":[\"markdown\"]}}}}}",
                 (mode & 2) ? "utf-8" : "utf-16", (mode & 4) ? "true" : "false");
        feed_body(s, init);
        feed_body(s, "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}");
        char open[2048];
        snprintf(open, sizeof open,
                 "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{"
                 "\"textDocument\":{\"uri\":\"file:///f.cu\",\"languageId\":\"cuda\","
                 "\"version\":1,\"text\":\"%s\"}}}",
                 DOC);
        feed_body(s, open);
    }
    struct tr_framer f;
    tr_framer_init(&f, 1 << 20, on_msg, on_err, s);
    size_t chunk = (size_t)(mode >> 3) * 7 + 1;
    const char *p = (const char *)data + 1;
    size_t left = size - 1;
    while (left && !lsp_server_exited(s)) {
        size_t n = left < chunk ? left : chunk;
        tr_framer_feed(&f, p, n);
        p += n;
        left -= n;
    }
    /* The payload may also be a bare message body: feed it unframed too, so JSON and
     * dispatch are reached even when the fuzzer has not found the framing. */
    if (!lsp_server_exited(s) && size > 1)
        lsp_server_feed(s, (const char *)data + 1, size - 1);
    tr_framer_free(&f);
    lsp_server_stop(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    lsp_server_free(s);
    uv_run(&loop, UV_RUN_DEFAULT);
    if (uv_loop_close(&loop) != 0) {
        fprintf(stderr, "handles left open on the loop\n");
        abort();
    }
    if (hk_alloc_live() != live_before) {
        fprintf(stderr, "leak: %ld allocations outlive the server\n",
                hk_alloc_live() - live_before);
        abort();
    }
    return 0;
}
