#!/usr/bin/env python3
"""Profiles one phase of the LSP benchmark in hkls with `perf record` attached to the
server process for that phase only, then prints the hottest functions (self time and,
with --children, time including callees).

Usage: python3 bench/lsp/profile_hkls.py --hkls build/hkls PHASE [--n N] [--perf-data F]
PHASE: open  (didOpen + documentSymbol of the big file, closed and opened again N times)
       edit  (N rounds of didChange + documentSymbol, as bench_lsp.py does)
       symbols (N documentSymbol requests on an unchanged file)
       hover (N hovers at kernel names)
The server runs with compile.enabled=false unless --compile. Python 3 standard library + perf.
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_lsp as B  # noqa: E402


# Where a sample's time goes: the first of these functions found on its stack, in this
# order (so a reply written from on_document_symbol counts as "reply", not "symbols").
CATEGORIES = [
    ("uv_spawn", "compile: spawning the compiler (uv_spawn: fork of the server)"),
    ("cc_job_start", "compile: cc_job_start (rest)"),
    ("ts_tree_delete", "parse: ts_tree_delete (the old tree)"),
    ("ts_subtree_balance", "parse: ts_subtree_balance"),
    ("ts_parser_parse", "parse: ts_parser_parse (rest)"),
    ("x_item", "analysis: extraction of items (x_item)"),
    ("commit", "analysis: model splice after an edit (commit)"),
    ("install_full", "analysis: model assembly after a full parse (install_full)"),
    ("an_doc_parse", "analysis: an_doc_parse (rest: chunk scan, plan)"),
    ("an_doc_edit", "analysis: an_doc_edit"),
    ("doc_apply_changes", "documents: doc_apply_changes"),
    ("rpc_call_reply_raw", "reply: rpc_call_reply_raw (envelope copy, framing, write)"),
    ("tr_conn_send", "reply: tr_conn_send (frame copy, write)"),
    ("sym_patch", "documentSymbol: sym_patch (kept reply patched in place)"),
    ("jw_range", "documentSymbol: jw_range (positions)"),
    ("hk_asprintf", "documentSymbol: hk_asprintf (details, labels)"),
    ("on_document_symbol", "documentSymbol: rest (lines, render)"),
    ("on_hover", "hover"),
    ("json_loadb", "request: json_loadb"),
]


def print_breakdown(data, pid):
    """Attributes the server process's samples (not its compiler children) to
    CATEGORIES and prints the shares."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "pid,ip,sym"],
                         capture_output=True, text=True).stdout
    stacks, cur = [], None
    for ln in out.splitlines():
        if not ln.strip():
            if cur is not None:
                stacks.append(cur)
            cur = None
        elif not ln[0].isspace():
            cur = [] if ln.split()[0] == str(pid) else None
        elif cur is not None:
            parts = ln.strip().split(None, 1)
            cur.append(parts[1].split(" (")[0] if len(parts) > 1 else "?")
    if cur is not None:
        stacks.append(cur)
    if not stacks:
        print("(no samples of the server process)")
        return
    counts = {}
    for st in stacks:
        label = next((lab for key, lab in CATEGORIES if key in st), "other")
        counts[label] = counts.get(label, 0) + 1
    print("server samples: %d" % len(stacks))
    for label, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print("  %5.1f%%  %s" % (100.0 * n / len(stacks), label))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hkls", required=True)
    ap.add_argument("phase", choices=["open", "edit", "symbols", "hover"])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--kernels", type=int, default=1000)
    ap.add_argument("--perf-data", default=None)
    ap.add_argument("--children", action="store_true", help="also report with callees")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--compile", action="store_true",
                    help="background compile on (debounce 0): each edit restarts nvcc")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="hk-prof.")
    data = args.perf_data or os.path.join(tmp, "perf.data")
    text = subprocess.run([sys.executable, B.GEN, "--kernels", str(args.kernels)], check=True,
                          capture_output=True, text=True).stdout
    path = os.path.join(tmp, "big.cu")
    with open(path, "w") as f:
        f.write(text)
    doc = B.Doc(path, text)
    srv = B.Server("hkls", [os.path.abspath(args.hkls)], tmp, os.path.join(tmp, "hkls.log"))
    B.initialize(srv, tmp, {"compile": {"enabled": bool(args.compile), "debounceMs": 0}})
    if args.phase != "open":
        srv.notify("textDocument/didOpen", B.open_params(doc))
        srv.request("textDocument/documentSymbol", {"textDocument": {"uri": doc.uri}})
    perf = subprocess.Popen(["perf", "record", "-q", "-F", "1999", "--call-graph", "dwarf,16384",
                             "-p", str(srv.pid), "-o", data], stdout=subprocess.DEVNULL)
    time.sleep(1.0)  # perf attaches
    rng = random.Random(3)
    state = {}
    t0 = time.perf_counter()
    lat = []
    for r in range(args.n):
        t1 = time.perf_counter()
        if args.phase == "open":
            srv.notify("textDocument/didOpen", B.open_params(doc))
            srv.request("textDocument/documentSymbol", {"textDocument": {"uri": doc.uri}})
            srv.notify("textDocument/didClose", {"textDocument": {"uri": doc.uri}})
        elif args.phase == "edit":
            srv.notify("textDocument/didChange", B.edit_round(srv, doc, r, rng, state))
            srv.request("textDocument/documentSymbol", {"textDocument": {"uri": doc.uri}})
        elif args.phase == "symbols":
            srv.request("textDocument/documentSymbol", {"textDocument": {"uri": doc.uri}})
        else:
            name, line, col = doc.kernels[rng.randrange(len(doc.kernels))]
            srv.request("textDocument/hover", {"textDocument": {"uri": doc.uri},
                                               "position": {"line": line, "character": col + 1}})
        lat.append((time.perf_counter() - t1) * 1000)
    wall = time.perf_counter() - t0
    perf.send_signal(signal.SIGINT)
    perf.wait()
    srv.stop()
    lat.sort()
    print("%s x%d: %.2f s, p50 %.2f ms, max %.2f ms" % (args.phase, args.n, wall,
                                                       lat[len(lat) // 2], lat[-1]))
    print_breakdown(data, srv.pid)
    rep = ["perf", "report", "-i", data, "--stdio", "--no-call-graph" if not args.children
           else "--children", "--percent-limit", "0.5", "--sort", "symbol"]
    if not args.children:
        rep.insert(5, "--no-children")
    out = subprocess.run(rep, capture_output=True, text=True).stdout
    lines = [ln for ln in out.splitlines() if ln.strip() and not ln.startswith("#")]
    print("\n".join(lines[:args.top]))
    print("perf data: %s" % data, file=sys.stderr)


if __name__ == "__main__":
    main()
