/* How long the server's event loop is kept from its I/O (issue 14: nothing on the loop may
 * take more than 5 ms on a 700 KB file). Each loop iteration's busy time is the wall time
 * between two check callbacks (they run once per iteration, after the poll) less the time
 * the loop spent waiting inside the poll (libuv's idle-time metric): the timers, the message
 * handlers, the work-queue completions and the process exits of that iteration together.
 * The longest iteration is kept with the messages handled in it; the client reads the
 * figures with the `hyperkernel/loopStats` request (docs/protocol.md). */
#ifndef HK_LSP_LOOPWATCH_H
#define HK_LSP_LOOPWATCH_H

#include <jansson.h>
#include <stdint.h>
#include <uv.h>

/* An iteration busier than this counts in "over_limit". */
#define LOOPWATCH_LIMIT_MS 5.0

/* How many of the busiest iterations (loop-thread CPU time) "top_cpu" lists. */
#define LOOPWATCH_TOP 8

typedef struct lsp_loopwatch lsp_loopwatch;

/* Starts watching loop (before uv_run: the idle-time metric must be on from the start).
 * The watch does not keep the loop alive. HK_OK, HK_ENOMEM, or HK_EIO when libuv refuses
 * the metric (the server then runs unwatched). */
int lsp_loopwatch_start(uv_loop_t *loop, lsp_loopwatch **out);

/* Names what the current iteration is doing ("textDocument/didOpen"): the longest
 * iteration reports the names noted during it. NULL w: nothing. */
void lsp_loopwatch_note(lsp_loopwatch *w, const char *what);

/* {"iterations", "busy_ms_max", "busy_ms_mean", "busy_ms_p99", "over_limit",
 *  "limit_ms", "longest_during", "cpu_ms_max", "cpu_over_limit", "cpu_longest_during",
 *  "faults_max", "faults_total", "faults_longest_during",
 *  "longest": {"cpu_ms", "faults", "preempted"},
 *  "heap_calls_max", "heap_calls_longest_during",
 *  "top_cpu": [{"cpu_ms", "busy_ms", "heap_calls", "during"}, ...]}
 * (the cpu_ figures: the loop thread's CPU time per iteration, without preemption; the
 * faults_ ones: its page faults, the most in one iteration and in all; "longest": the
 * longest iteration's own CPU time, page faults and involuntary context switches, which
 * tell work from a wait for a core; "heap_calls_": the loop thread's allocations and frees
 * (hk_thread_heap_calls), the most in one iteration and what it handled: a count of work
 * that no load changes, which tests can assert; "top_cpu": the LOOPWATCH_TOP iterations with the most
 * loop-thread CPU time, most first, each with its busy wall time and what it handled);
 * NULL on ENOMEM.
 * Busy times of iterations not yet ended are not counted. */
json_t *lsp_loopwatch_json(const lsp_loopwatch *w);

/* Forgets the figures counted so far (not the iteration under way): the next
 * lsp_loopwatch_json counts from here. NULL w: nothing. */
void lsp_loopwatch_reset(lsp_loopwatch *w);

/* Stops and closes the watch; its memory is freed by the close callback (the loop must
 * run once more, as the server's shutdown does). NULL: nothing. */
void lsp_loopwatch_stop(lsp_loopwatch *w);

#endif
