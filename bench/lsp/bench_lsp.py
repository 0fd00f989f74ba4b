#!/usr/bin/env python3
"""LSP latency and memory benchmark: hkls against clangd on the same generated file.

Drives each server over stdio as an editor would (Content-Length framing, JSON-RPC) and
measures, for issue 2's targets:
  - didOpen of an ~18,000-line .cu (1,000 kernels) -> first documentSymbol reply;
  - hover at kernel names (p50/p99);
  - an incremental edit (didChange) followed by documentSymbol (p50/p99);
  - VmRSS idle after the open, and with 100 files open.
Both servers get the same files and the same requests in the same run. hkls runs with
its background compile off (compile.enabled=false) for the latency figures; a second
hkls run with the compile on measures hover and edit latency while nvcc runs.

Python 3 standard library only. Usage (see bench/lsp/README.md):
  python3 bench/lsp/bench_lsp.py --hkls build/hkls [--clangd clangd] [--out FILE.md]
"""
import argparse
import json
import math
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GEN = os.path.join(REPO, "bench", "gen_kernels.py")

TARGETS = {"first_symbols_ms": 300.0, "hover_p99_ms": 2.0, "edit_symbols_p99_ms": 10.0,
           "idle_rss_mb": 30.0}

KERNEL_RE = re.compile(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?([A-Za-z_]\w*)\s*\(")

# clang 14 (clangd 14) predates CUDA 12/13: its CUDA wrapper needs texture references
# (removed in CUDA 12) and, not knowing the version, lowers <<<>>> through
# cudaConfigureCall (removed in CUDA 10.1+ headers). These three headers, found first
# through -I, restore exactly those names so the CUDA 13 headers parse; nothing else.
CLANG_SHIM = {
    "texture_fetch_functions.h": "/* removed in CUDA 12; clang 14's wrapper includes it */\n",
    "texture_indirect_functions.h": "/* see texture_fetch_functions.h */\n",
    "sm_61_intrinsics.hpp": (
        "#include_next \"sm_61_intrinsics.hpp\"\n"
        "/* clang 14's texture intrinsics name the pre-CUDA-12 texture<> template */\n"
        "template <class T, int texType = 0x01,\n"
        "          enum cudaTextureReadMode mode = cudaReadModeElementType>\n"
        "struct texture {};\n"
        "/* clang 14 does not know CUDA 13 and lowers <<<>>> through this pre-9.2 call */\n"
        "extern \"C\" __host__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim,\n"
        "    size_t sharedMem = 0, cudaStream_t stream = 0);\n"),
}


class LspError(Exception):
    pass


def pct(values, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(1, math.ceil(p / 100.0 * len(s)))
    return s[k - 1]


def utf16_col(line, char_index):
    return len(line[:char_index].encode("utf-16-le")) // 2


def rss_kb(pid, key="VmRSS"):
    try:
        with open("/proc/%d/status" % pid) as f:
            for ln in f:
                if ln.startswith(key + ":"):
                    return int(ln.split()[1])
    except OSError:
        pass
    return None


def children_of(pid):
    """Direct and indirect child pids of pid, with their command names."""
    kids = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return kids
    parent = {}
    names = {}
    for e in entries:
        if not e.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % e) as f:
                st = f.read()
        except OSError:
            continue
        r = st.rfind(")")
        fields = st[r + 2:].split()
        parent[int(e)] = int(fields[1])
        names[int(e)] = st[st.find("(") + 1:r]
    for p in parent:
        q = parent[p]
        depth = 0
        while q and depth < 32:
            if q == pid:
                kids[p] = names[p]
                break
            q = parent.get(q, 0)
            depth += 1
    return kids


def proc_state(pid):
    """The one-letter state of pid (R, S, Z...), None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
        return st[st.rfind(")") + 2:].split()[0]
    except (OSError, IndexError):
        return None


class Server:
    """One language server process over stdio, driven synchronously."""

    def __init__(self, name, cmd, cwd, log_path, env=None):
        self.name = name
        self.cmd = cmd
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, bufsize=0, env=env)
        self.pid = self.proc.pid
        self.fd = self.proc.stdout.fileno()
        self.buf = bytearray()
        self.next_id = 1
        self.diag_times = {}  # uri -> (time, count) of the last publishDiagnostics
        self.notes = []
        self.counts = {}  # method of each notification and request from the server -> count
        self.watch = None  # called with every message from the server (the --busy run)

    def send(self, obj):
        body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method, params):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:  # JSON-RPC: params is structured or absent, never null
            msg["params"] = params
        self.send(msg)

    def _frames(self, t_read):
        """Complete messages in the buffer, each stamped with the time its last byte was
        read."""
        out = []
        while True:
            h = self.buf.find(b"\r\n\r\n")
            if h < 0:
                return out
            length = None
            for line in bytes(self.buf[:h]).split(b"\r\n"):
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    length = int(v.strip())
            if length is None:
                raise LspError("%s: message without Content-Length" % self.name)
            if len(self.buf) < h + 4 + length:
                return out
            body = bytes(self.buf[h + 4:h + 4 + length])
            del self.buf[:h + 4 + length]
            out.append((t_read, body))

    def _handle(self, msg):
        if "method" in msg:
            self.counts[msg["method"]] = self.counts.get(msg["method"], 0) + 1
        if self.watch:
            self.watch(msg)
        if "method" in msg and "id" in msg:
            # a request from the server (progress, configuration...): answer as a
            # minimal client does
            result = None
            if msg["method"] == "workspace/configuration":
                result = [None] * len(msg.get("params", {}).get("items", []))
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        elif msg.get("method") == "textDocument/publishDiagnostics":
            p = msg.get("params", {})
            self.diag_times[p.get("uri")] = (time.perf_counter(), len(p.get("diagnostics", [])))

    def pump(self, want_id=None, timeout=120.0):
        """Reads messages until the response to want_id arrives (returns (time, msg)) or,
        with want_id None, until no data arrives for `timeout` seconds."""
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                if want_id is None:
                    return None
                raise LspError("%s: no response to request %s within %.0f s"
                               % (self.name, want_id, timeout))
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                continue
            # Drain everything available before parsing, so parsing never delays the
            # time stamp of a message already in the pipe.
            while True:
                chunk = os.read(self.fd, 1 << 20)
                if not chunk:
                    raise LspError("%s exited (code %s)" % (self.name, self.proc.poll()))
                self.buf += chunk
                r, _, _ = select.select([self.fd], [], [], 0)
                if not r:
                    break
            t_read = time.perf_counter()
            for t, body in self._frames(t_read):
                msg = json.loads(body)
                if want_id is not None and msg.get("id") == want_id and "method" not in msg:
                    if "error" in msg:
                        raise LspError("%s: request %s failed: %s"
                                       % (self.name, want_id, msg["error"]))
                    return t, msg.get("result")
                self._handle(msg)
            if want_id is None:
                deadline = time.perf_counter() + timeout

    def request(self, method, params, timeout=120.0):
        """Sends a request; returns (elapsed ms from the start of the write to the last
        byte of the response, result)."""
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        t0 = time.perf_counter()
        self.send(msg)
        t1, result = self.pump(rid, timeout)
        self.last_reply_t = t1
        return (t1 - t0) * 1000.0, result

    def idle(self, quiet_s):
        """Handles whatever the server sends until it has been quiet for quiet_s."""
        self.pump(None, quiet_s)

    def sched(self):
        """(on-CPU ms, run-queue wait ms) summed over the server's threads so far, from
        /proc/PID/task/*/schedstat (nanoseconds). On-CPU time is what a request costs
        the server whatever else the machine runs; the wait is what the load added."""
        run = wait = 0
        try:
            tasks = os.listdir("/proc/%d/task" % self.pid)
        except OSError:
            return None
        for t in tasks:
            try:
                with open("/proc/%d/task/%s/schedstat" % (self.pid, t)) as f:
                    a = f.read().split()
                run += int(a[0])
                wait += int(a[1])
            except (OSError, ValueError, IndexError):
                pass
        return run / 1e6, wait / 1e6

    def timed_request(self, method, params, before=None):
        """request() plus the server's on-CPU and run-queue-wait ms over it. `before`,
        a callable, is sent first inside the timed window (a didChange)."""
        s0 = self.sched()
        t0 = time.perf_counter()
        if before:
            before()
        _, result = self.request(method, params)
        # to the last byte of the reply, as documented: not the driver's json.loads of it
        # (about 15 ms for a 1.1 MB documentSymbol reply in CPython)
        wall = (self.last_reply_t - t0) * 1000.0
        s1 = self.sched()
        return wall, s1[0] - s0[0], s1[1] - s0[1], result

    def rss_mb(self):
        kb = rss_kb(self.pid)
        return kb / 1024.0 if kb is not None else None

    def stop(self):
        try:
            self.request("shutdown", None, timeout=30)
            self.notify("exit", None)
            self.proc.stdin.close()
        except (LspError, OSError) as e:
            self.notes.append("shutdown: %s" % e)
        try:
            code = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
            self.notes.append("killed after the exit notification")
        self.log.close()
        return code


class Doc:
    """The client's copy of an open document: text lines, version, utf-16 positions."""

    def __init__(self, path, text):
        self.uri = "file://" + path
        self.text = text
        self.version = 1
        self.lines = text.split("\n")
        self.kernels = []  # (name, line, utf16 start column of the name)
        for i, ln in enumerate(self.lines):
            if "__global__" not in ln:
                continue
            m = KERNEL_RE.search(ln)
            if m:
                self.kernels.append((m.group(1), i, utf16_col(ln, m.start(1))))
        self.bodies = []  # first body line of each kernel
        for _, i, _ in self.kernels:
            j = i
            while j < len(self.lines) and not self.lines[j].rstrip().endswith("{"):
                j += 1
            self.bodies.append(j + 1)


def _copy_as(self, name):
    d = Doc.__new__(Doc)
    d.__dict__.update(self.__dict__)
    d.uri = self.uri.rsplit("/", 1)[0] + "/" + name
    d.version = 1
    return d


Doc.copy_as = _copy_as


def open_params(doc):
    return {"textDocument": {"uri": doc.uri, "languageId": "cuda", "version": doc.version,
                             "text": doc.text}}


def count_kernels(result, names):
    """How many of the kernel names appear as symbols (either symbol form)."""
    if not isinstance(result, list):
        return 0
    seen = set()
    for s in result:
        n = s.get("name")
        if n in names:
            seen.add(n)
    return len(seen)


def hover_ok(result, name):
    if not result:
        return False
    c = result.get("contents")
    if isinstance(c, dict):
        c = c.get("value", "")
    elif isinstance(c, list):
        c = " ".join(x if isinstance(x, str) else x.get("value", "") for x in c)
    return isinstance(c, str) and name in c


INIT_CAPS = {
    "textDocument": {
        "synchronization": {"didSave": True, "dynamicRegistration": False},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "publishDiagnostics": {"versionSupport": True},
    },
    "workspace": {"configuration": False, "workspaceFolders": True},
}


def initialize(srv, root, init_options):
    params = {"processId": os.getpid(), "rootUri": "file://" + root,
              "workspaceFolders": [{"uri": "file://" + root, "name": "bench"}],
              "capabilities": getattr(srv, "caps", INIT_CAPS)}
    if init_options is not None:
        params["initializationOptions"] = init_options
    ms, res = srv.request("initialize", params, timeout=60)
    srv.notify("initialized", {})
    return ms, res


def edit_round(srv, doc, r, rng, state):
    """Round r of the edit benchmark: pairs of rounds insert then delete the same text
    in the body of a random kernel (a space, or a whole line, alternately), so the text
    goes back to the original after each pair. Returns the didChange params."""
    if r % 2 == 0:
        k = rng.randrange(len(doc.bodies))
        line = doc.bodies[k]
        kind = "char" if (r // 2) % 2 == 0 else "line"
        text = " " if kind == "char" else "    int hk_bench_tmp = 0;\n"
        state["last"] = (line, kind)
        change = {"range": {"start": {"line": line, "character": 0},
                            "end": {"line": line, "character": 0}}, "text": text}
    else:
        line, kind = state["last"]
        end = {"line": line, "character": 1} if kind == "char" else {"line": line + 1,
                                                                    "character": 0}
        change = {"range": {"start": {"line": line, "character": 0}, "end": end}, "text": ""}
    doc.version += 1
    return {"textDocument": {"uri": doc.uri, "version": doc.version},
            "contentChanges": [change]}


def summarize(xs):
    return {"n": len(xs), "p50": pct(xs, 50), "p99": pct(xs, 99), "max": max(xs),
            "mean": sum(xs) / len(xs)}


def run_server(name, cmd, ws, big, extra, init_options, args, log_dir, wait_diags, rounds):
    """The common scenario; returns a dict of figures."""
    out = {"name": name, "cmd": " ".join(cmd), "notes": [], "rounds": rounds}
    srv = Server(name, cmd, ws, os.path.join(log_dir, name + ".log"))
    try:
        ms, res = initialize(srv, ws, init_options)
        out["initialize_ms"] = ms
        srv.idle(0.3)
        out["start_rss_mb"] = srv.rss_mb()
        out["server_info"] = (res or {}).get("serverInfo")
        names = {k[0] for k in big.kernels}

        # 1. didOpen -> first documentSymbol: on copies of the big file (opened, asked,
        # closed), then on the big file itself, which stays open
        opens = []
        for i in range(args.opens):
            d = big if i == args.opens - 1 else big.copy_as("big_open%d.cu" % (i + 1))
            wall, cpu, wait, syms = srv.timed_request(
                "textDocument/documentSymbol", {"textDocument": {"uri": d.uri}},
                before=lambda d=d: srv.notify("textDocument/didOpen", open_params(d)))
            opens.append((wall, cpu, wait))
            if d is not big:
                srv.notify("textDocument/didClose", {"textDocument": {"uri": d.uri}})
        out["first_symbols_ms"] = opens[0][0]
        out["first_symbols_cpu_ms"] = opens[0][1]
        out["open_symbols"] = summarize([o[0] for o in opens])
        out["open_symbols_cpu"] = summarize([o[1] for o in opens])
        out["open_symbols_wait"] = summarize([o[2] for o in opens])
        out["first_symbols_kernels"] = count_kernels(syms, names)
        out["symbols_top_level"] = len(syms) if isinstance(syms, list) else 0
        out["symbols_reply_bytes"] = len(json.dumps(syms))

        # idle RSS: after the open, once the server has settled
        if wait_diags:
            deadline = time.perf_counter() + 60
            while big.uri not in srv.diag_times and time.perf_counter() < deadline:
                srv.pump(None, 0.5)
            out["diagnostics_after_open"] = srv.diag_times.get(big.uri, (None, None))[1]
        srv.idle(1.0)
        out["idle_rss_mb"] = srv.rss_mb()

        # 2. hovers at kernel names (the first 10 warm up)
        rng = random.Random(7)
        order = [rng.randrange(len(big.kernels)) for _ in range(args.hovers + 10)]
        lat, cpu, wait, good = [], [], [], 0
        for i, k in enumerate(order):
            kname, line, col = big.kernels[k]
            w, c, q, h = srv.timed_request("textDocument/hover", {
                "textDocument": {"uri": big.uri},
                "position": {"line": line, "character": col + min(2, len(kname) - 1)}})
            if i >= 10:
                lat.append(w)
                cpu.append(c)
                wait.append(q)
                good += hover_ok(h, kname)
        out["hover"] = summarize(lat)
        out["hover_cpu"] = summarize(cpu)
        out["hover_wait"] = summarize(wait)
        out["hover_ok"] = good

        # 3. incremental edit -> documentSymbol
        state = {}
        lat, cpu, wait, good = [], [], [], 0
        for r in range(rounds):
            ch = edit_round(srv, big, r, rng, state)
            w, c, q, syms = srv.timed_request(
                "textDocument/documentSymbol", {"textDocument": {"uri": big.uri}},
                before=lambda ch=ch: srv.notify("textDocument/didChange", ch))
            lat.append(w)
            cpu.append(c)
            wait.append(q)
            good += count_kernels(syms, names) == len(names)
        out["edit_symbols"] = summarize(lat)
        out["edit_symbols_cpu"] = summarize(cpu)
        out["edit_symbols_wait"] = summarize(wait)
        out["edit_symbols_complete"] = good

        # 4. RSS with 100 open files: the big one and the generated small ones
        for d in extra:
            srv.notify("textDocument/didOpen", open_params(d))
            srv.request("textDocument/documentSymbol", {"textDocument": {"uri": d.uri}})
        if wait_diags:
            deadline = time.perf_counter() + 120
            while (sum(d.uri in srv.diag_times for d in extra) < len(extra)
                   and time.perf_counter() < deadline):
                srv.pump(None, 0.5)
        srv.idle(1.0)
        out["files_open"] = 1 + len(extra)
        out["rss_100_mb"] = srv.rss_mb()
        out["peak_rss_mb"] = (rss_kb(srv.pid, "VmHWM") or 0) / 1024.0

        # 5. hkls: how long any one loop iteration held its event loop over the whole run
        # (hyperkernel/loopStats, server/lsp/loopwatch.h); issue 14's budget is 5 ms
        if name == "hkls":
            _, loop = srv.request("hyperkernel/loopStats", {})
            out["loop"] = loop if isinstance(loop, dict) else None
            if out["loop"]:
                out["loop_iterations"] = loop.get("iterations")
                out["loop_over"] = loop.get("over_limit")
                out["loop_p99"] = loop.get("busy_ms_p99")
                out["loop_during"] = loop.get("longest_during") or "-"
                out["loop_cpu_max"] = loop.get("cpu_ms_max")
                out["loop_cpu_over"] = loop.get("cpu_over_limit")
                out["loop_cpu_during"] = loop.get("cpu_longest_during") or "-"
                out["loop_faults_max"] = loop.get("faults_max")
                out["loop_faults_total"] = loop.get("faults_total")
                out["loop_faults_during"] = loop.get("faults_longest_during") or "-"
                lg = loop.get("longest") or {}
                out["loop_longest_cpu"] = lg.get("cpu_ms")
                out["loop_longest_faults"] = lg.get("faults")
                out["loop_longest_preempted"] = lg.get("preempted")
    finally:
        out["exit_code"] = srv.stop()
        out["notes"] += srv.notes
    return out


def run_hkls_compiling(args, ws, big, log_dir):
    """hkls with its background compile on: hover and edit+symbols latency while nvcc
    runs on the big file (the loop must not wait for it)."""
    out = {"notes": []}
    cmd = [args.hkls, "--log", os.path.join(log_dir, "hkls-compile.log"), "--log-level", "info"]
    srv = Server("hkls-compile", cmd, ws, os.path.join(log_dir, "hkls-compile.stderr"))
    try:
        initialize(srv, ws, {"compile": {"enabled": True, "debounceMs": 0,
                                         "timeoutMs": args.compile_timeout * 1000}})
        t_open = time.perf_counter()
        srv.notify("textDocument/didOpen", open_params(big))
        srv.request("textDocument/documentSymbol", {"textDocument": {"uri": big.uri}})
        # wait for the compiler child to appear
        kids = {}
        deadline = time.perf_counter() + 10
        while not kids and time.perf_counter() < deadline:
            srv.pump(None, 0.05)
            kids = children_of(srv.pid)
        out["compiler_seen"] = sorted(set(kids.values()))
        rng = random.Random(11)
        hov, hov_cpu, sym, sym_cpu = [], [], [], []
        diag_uri_time = None
        while time.perf_counter() - t_open < args.compile_timeout + 30:
            kname, line, col = big.kernels[rng.randrange(len(big.kernels))]
            running = bool(children_of(srv.pid))
            w, c, _, _ = srv.timed_request("textDocument/hover", {
                "textDocument": {"uri": big.uri},
                "position": {"line": line, "character": col + 1}})
            w2, c2, _, _ = srv.timed_request("textDocument/documentSymbol",
                                             {"textDocument": {"uri": big.uri}})
            if running and big.uri not in srv.diag_times:
                hov.append(w)
                hov_cpu.append(c)
                sym.append(w2)
                sym_cpu.append(c2)
            if big.uri in srv.diag_times:
                diag_uri_time = srv.diag_times[big.uri]
                break
            time.sleep(0.05)  # an editor's pace
        # the loop so far: the open, the parse, the requests above and the compile's end
        # (its output parsed, diagnostics and resource hints made and published: the
        # iteration the loop watch notes "(compile done)")
        srv.idle(0.5)
        _, loop = srv.request("hyperkernel/loopStats", {})
        out["loop_compile_done"] = loop if isinstance(loop, dict) else None
        out["compile_s"] = (diag_uri_time[0] - t_open) if diag_uri_time else None
        out["diagnostics"] = diag_uri_time[1] if diag_uri_time else None
        out["hover_while_compiling"] = summarize(hov) if hov else None
        out["hover_cpu_while_compiling"] = summarize(hov_cpu) if hov_cpu else None
        out["symbols_while_compiling"] = summarize(sym) if sym else None
        out["symbols_cpu_while_compiling"] = summarize(sym_cpu) if sym_cpu else None
        # typing while compiling: with debounce 0 each edit cancels the running compile
        # (its process group is killed) and starts the next one
        state = {}
        lat, cpu = [], []
        kills = 0
        for r in range(args.compile_edit_rounds):
            ch = edit_round(srv, big, r, rng, state)
            kills += bool(children_of(srv.pid))
            w, c, _, _ = srv.timed_request(
                "textDocument/documentSymbol", {"textDocument": {"uri": big.uri}},
                before=lambda ch=ch: srv.notify("textDocument/didChange", ch))
            lat.append(w)
            cpu.append(c)
            time.sleep(0.3)
        out["edit_symbols_while_compiling"] = summarize(lat) if lat else None
        out["edit_symbols_cpu_while_compiling"] = summarize(cpu) if cpu else None
        out["edit_rounds_with_compiler_running"] = kills
        out["rss_with_compiler_mb"] = srv.rss_mb()
        _, loop = srv.request("hyperkernel/loopStats", {})
        out["loop_end"] = loop if isinstance(loop, dict) else None
    finally:
        before = children_of(srv.pid)
        t0 = time.perf_counter()
        out["exit_code"] = srv.stop()
        out["stop_s"] = time.perf_counter() - t0
        time.sleep(0.5)
        # compiler processes that outlived the server (reparented); zombies waiting for
        # init to reap them do not count
        left = [p for p in before if proc_state(p) not in (None, "Z")]
        out["compilers_at_stop"] = len(before)
        out["compilers_left_after_exit"] = len(left)
        out["notes"] += srv.notes
    return out


def burner():
    """A process that keeps one CPU busy until killed (the --busy run's other work)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


def write_ccdb(path, ws, n, gen):
    """A compile_commands.json of n entries (the big file, saxpy.cu, and n - 2 files of a
    pretend project); gen changes a -D flag of every entry, so each call changes it."""
    flags = ["nvcc", "-x", "cu", "-std=c++17", "-I%s/include" % ws, "-I%s/third_party" % ws,
             "-DHK_BUSY_GEN=%d" % gen, "-O2", "-c"]
    files = [os.path.join(ws, "big.cu"), os.path.join(ws, "saxpy.cu")]
    files += [os.path.join(ws, "src", "m%03d" % (i % 200), "gen_%05d.cu" % i)
              for i in range(n - 2)]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump([{"directory": ws, "file": fn, "arguments": flags + [fn, "-o", fn + ".o"]}
                   for fn in files], f)
    os.replace(tmp, path)  # as a build tool does: the server never reads half a file
    return os.path.getsize(path)


def run_busy(args, tmp, big_text, log_dir):
    """The --busy scenario: what a user meets while the server works. The big file stays
    open while at once (a) episodes run on the simulated GPU, one after another, streaming
    $/progress and diagnostics; (b) edits + documentSymbol, hover and codeAction requests
    go to the big file (and codeAction to the episode's file, whose Apply actions are
    planned from the episode's versions); (c) a large compile_commands.json is rewritten
    every --ccdb-every seconds and the big file saved, so the server reads it again and
    recompiles; (d) --burn processes keep the CPUs busy. Returns the figures."""
    out = {"notes": [], "kinds": {}}
    ws = os.path.join(tmp, "ws-busy")
    os.makedirs(ws)
    with open(os.path.join(ws, "big.cu"), "w") as f:
        f.write(big_text)
    shutil.copy(os.path.join(REPO, "bench", "kernels", "saxpy.cu"), ws)
    spec = json.load(open(os.path.join(REPO, "tests", "data", "episode", "tiny.bench.json")))
    spec["source"] = "saxpy.cu"
    with open(os.path.join(ws, "saxpy.saxpy.bench.json"), "w") as f:
        json.dump(spec, f, indent=1)
    ccdb = os.path.join(ws, "compile_commands.json")
    gen = 0
    out["ccdb_bytes"] = write_ccdb(ccdb, ws, args.ccdb_entries, gen)
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    cuda_bin = os.path.join(args.cuda_path, "bin")
    env = dict(os.environ, HOME=home, TMPDIR=home, XDG_DATA_HOME=os.path.join(home, "xdg"),
               XDG_CONFIG_HOME=os.path.join(home, "config"),
               PATH=cuda_bin + os.pathsep + os.environ.get("PATH", ""))
    env.pop("HK_NO_GPU", None)
    burners = [burner() for _ in range(args.burn)]
    out["burners"] = len(burners)
    nvcc = os.path.join(cuda_bin, "nvcc")
    cmd = [args.hkls, "--log", os.path.join(log_dir, "hkls-busy.log"), "--log-level", "info"]
    srv = Server("hkls-busy", cmd, ws, os.path.join(log_dir, "hkls-busy.stderr"), env=env)
    ev = {"ended": [], "progress": 0, "diags_big": 0, "diags_saxpy": 0}
    big = Doc(os.path.join(ws, "big.cu"), big_text)
    sax_path = os.path.join(ws, "saxpy.cu")
    sax = Doc(sax_path, open(sax_path).read())

    def watch(msg):
        m = msg.get("method")
        if m == "$/progress":
            ev["progress"] += 1
        elif m == "hyperkernel/episodeChanged":
            p = msg.get("params", {})
            if p.get("status") in ("completed", "stopped", "failed"):
                ev["ended"].append((p.get("episode"), p.get("status")))
        elif m == "textDocument/publishDiagnostics":
            uri = msg.get("params", {}).get("uri")
            if uri == big.uri:
                ev["diags_big"] += 1
            elif uri == sax.uri:
                ev["diags_saxpy"] += 1
    srv.watch = watch
    lat = {}

    def timed(kind, method, params, before=None):
        w, c, q, r = srv.timed_request(method, params, before=before)
        lat.setdefault(kind, ([], [], []))
        lat[kind][0].append(w)
        lat[kind][1].append(c)
        lat[kind][2].append(q)
        return r

    def optimize():
        _, r = srv.request("workspace/executeCommand", {
            "command": "hyperkernel.optimize",
            "arguments": [{"uri": sax.uri, "kernel": "saxpy", "target": "nvidia"}]})
        return r["episode"]

    try:
        srv.caps = dict(INIT_CAPS, window={"workDoneProgress": True})
        initialize(srv, ws, {
            "compile": {"enabled": True, "nvcc": nvcc,
                        "timeoutMs": args.compile_timeout * 1000},
            "episodes": {"simulate": True, "db": os.path.join(home, "history.db"),
                         "budget": args.busy_budget, "check": "quick"}})
        load0 = open("/proc/loadavg").read().split()[:3]
        out["load_start"] = " ".join(load0)
        timed("didOpen + documentSymbol (742 KB)", "textDocument/documentSymbol",
              {"textDocument": {"uri": big.uri}},
              before=lambda: srv.notify("textDocument/didOpen", open_params(big)))
        srv.notify("textDocument/didOpen", open_params(sax))
        episodes = [optimize()]
        names = {k[0] for k in big.kernels}
        rng = random.Random(5)
        state = {}
        t0 = time.perf_counter()
        t_ccdb = t0
        rounds = complete = 0
        while time.perf_counter() - t0 < args.busy_seconds:
            for half in (0, 1):  # insert, then remove: the kernels' positions hold again
                ch = edit_round(srv, big, 2 * rounds + half, rng, state)
                syms = timed("didChange + documentSymbol", "textDocument/documentSymbol",
                             {"textDocument": {"uri": big.uri}},
                             before=lambda ch=ch: srv.notify("textDocument/didChange", ch))
                complete += count_kernels(syms, names) == len(names)
            kname, line, col = big.kernels[rng.randrange(len(big.kernels))]
            at = {"line": line, "character": col + 1}
            timed("hover", "textDocument/hover", {"textDocument": {"uri": big.uri},
                                                  "position": at})
            timed("codeAction (big file)", "textDocument/codeAction", {
                "textDocument": {"uri": big.uri}, "range": {"start": at, "end": at},
                "context": {"diagnostics": []}})
            timed("codeLens (big file)", "textDocument/codeLens",
                  {"textDocument": {"uri": big.uri}})
            sat = {"line": 1, "character": 17}
            timed("codeAction (episode's file)", "textDocument/codeAction", {
                "textDocument": {"uri": sax.uri}, "range": {"start": sat, "end": sat},
                "context": {"diagnostics": []}})
            rounds += 1
            now = time.perf_counter()
            if now - t_ccdb >= args.ccdb_every:
                gen += 1
                write_ccdb(ccdb, ws, args.ccdb_entries, gen)
                srv.notify("textDocument/didSave", {"textDocument": {"uri": big.uri}})
                t_ccdb = now
            if len(ev["ended"]) >= len(episodes):
                episodes.append(optimize())
            srv.pump(None, args.busy_pause / 1000.0)  # an editor's typing pace
        out["seconds"] = time.perf_counter() - t0
        out["rounds"] = rounds
        out["symbols_complete"] = complete
        out["ccdb_rewrites"] = gen
        out["episodes_started"] = len(episodes)
        out["episodes_ended"] = list(ev["ended"])
        out["progress_notes"] = ev["progress"]
        out["diagnostics_big"] = ev["diags_big"]
        out["diagnostics_saxpy"] = ev["diags_saxpy"]
        out["server_messages"] = dict(srv.counts)
        out["compilers_seen_at_end"] = sorted(set(children_of(srv.pid).values()))
        # the big file closed and opened again (didClose frees its analysis on the pool;
        # the didOpen is decoded there), its symbols asked for at once
        srv.notify("textDocument/didClose", {"textDocument": {"uri": big.uri}})
        timed("didClose + didOpen + documentSymbol (742 KB)", "textDocument/documentSymbol",
              {"textDocument": {"uri": big.uri}},
              before=lambda: srv.notify("textDocument/didOpen", open_params(big)))
        out["load_end"] = " ".join(open("/proc/loadavg").read().split()[:3])
        _, loop = srv.request("hyperkernel/loopStats", {})
        out["loop"] = loop if isinstance(loop, dict) else None
        for kind, (w, c, q) in lat.items():
            out["kinds"][kind] = {"wall": summarize(w), "cpu": summarize(c),
                                  "wait": summarize(q)}
        if len(ev["ended"]) < len(episodes):
            srv.request("hyperkernel/cancel", {"episode": episodes[-1]})
    finally:
        for b in burners:
            b.kill()
            b.wait()
        out["exit_code"] = srv.stop()
        out["notes"] += srv.notes
    return out


def refusals_kernel(n):
    """A kernel of our own with n tunables (#define R0..), each the bound of a loop: the
    search refuses every one ("Rk not searched: used in the bound of a loop (line L)"), and
    the worker logs the n lines back to back (episode.c note_refused_tunables)."""
    L = ["// bench/lsp --events-burst: %d tunables, each the bound of a loop (refused)" % n]
    L += ["#define R%d 1" % k for k in range(n)]
    L += ["__global__ void refusals(int n, const float *x, float *y)", "{",
          "    int i = blockIdx.x * blockDim.x + threadIdx.x;", "    if (i < n) {",
          "        float acc = 0.0f;"]
    for k in range(n):
        L += ["        for (int k = 0; k < R%d; k++)" % k, "            acc += x[i];"]
    L += ["        y[i] = acc;", "    }", "}", "",
          "void launch_refusals(int n, const float *x, float *y)", "{",
          "    refusals<<<(n + 255) / 256, 256>>>(n, x, y);", "}", ""]
    return "\n".join(L)


def run_burst(args, tmp, log_dir):
    """The --events-burst scenario (session 35): an episode's worst burst of event lines
    on the loop, in a zh-CN session, which says each line again in Chinese (hk_tr_said,
    on the loop: server/lsp/episodes.c on_event_line). The kernel has --burst-tunables
    tunables the search refuses, so the worker logs that many refusal lines at once.
    --burst-episodes episodes on the simulated GPU, one after another, nothing else
    running (compile off, no edits); the loop watch is reset before the first and read
    after the last. Returns the figures."""
    out = {"notes": []}
    ws = os.path.join(tmp, "ws-burst")
    os.makedirs(ws)
    src = os.path.join(ws, "refusals.cu")
    with open(src, "w") as f:
        f.write(refusals_kernel(args.burst_tunables))
    spec = json.load(open(os.path.join(REPO, "tests", "data", "episode", "tiny.bench.json")))
    spec.update(name="refusals (bench/lsp --events-burst)", kernel="refusals",
                source="refusals.cu", flops="%d * n" % args.burst_tunables, bytes="8 * n")
    spec["args"] = [{"name": "n", "kind": "scalar", "dtype": "int", "value": "n"},
                    {"name": "x", "kind": "input", "dtype": "float", "count": "n"},
                    {"name": "y", "kind": "output", "dtype": "float", "count": "n"}]
    with open(os.path.join(ws, "refusals.refusals.bench.json"), "w") as f:
        json.dump(spec, f, indent=1)
    home = os.path.join(tmp, "home-burst")
    os.makedirs(home)
    cuda_bin = os.path.join(args.cuda_path, "bin")
    env = dict(os.environ, HOME=home, TMPDIR=home, XDG_DATA_HOME=os.path.join(home, "xdg"),
               XDG_CONFIG_HOME=os.path.join(home, "config"),
               PATH=cuda_bin + os.pathsep + os.environ.get("PATH", ""))
    env.pop("HK_NO_GPU", None)
    cmd = [args.hkls, "--log", os.path.join(log_dir, "hkls-burst.log"), "--log-level", "info"]
    srv = Server("hkls-burst", cmd, ws, os.path.join(log_dir, "hkls-burst.stderr"), env=env)
    doc = Doc(src, open(src).read())
    ev = {"ended": [], "refusals_zh": 0, "refusals_en": 0, "logs": 0}

    def watch(msg):
        m = msg.get("method")
        if m == "hyperkernel/episodeChanged":
            p = msg.get("params", {})
            if p.get("status") in ("completed", "stopped", "failed"):
                ev["ended"].append((p.get("episode"), p.get("status")))
        elif m == "window/logMessage":
            t = msg.get("params", {}).get("message", "")
            ev["logs"] += 1
            ev["refusals_zh"] += "未被搜索" in t
            ev["refusals_en"] += "not searched" in t
    srv.watch = watch
    try:
        srv.caps = dict(INIT_CAPS, window={"workDoneProgress": True})
        params = {"processId": os.getpid(), "rootUri": "file://" + ws, "locale": "zh-CN",
                  "workspaceFolders": [{"uri": "file://" + ws, "name": "bench"}],
                  "capabilities": srv.caps,
                  "initializationOptions": {
                      "compile": {"enabled": False},
                      "episodes": {"simulate": True, "db": os.path.join(home, "history.db"),
                                   "budget": args.burst_budget, "check": "quick"}}}
        srv.request("initialize", params, timeout=60)
        srv.notify("initialized", {})
        srv.notify("textDocument/didOpen", open_params(doc))
        srv.request("textDocument/documentSymbol", {"textDocument": {"uri": doc.uri}})
        out["load_start"] = " ".join(open("/proc/loadavg").read().split()[:3])
        srv.request("hyperkernel/loopStats", {"reset": True})
        t0 = time.perf_counter()
        for i in range(args.burst_episodes):
            _, r = srv.request("workspace/executeCommand", {
                "command": "hyperkernel.optimize",
                "arguments": [{"uri": doc.uri, "kernel": "refusals", "target": "nvidia"}]})
            deadline = time.perf_counter() + args.compile_timeout
            while len(ev["ended"]) <= i and time.perf_counter() < deadline:
                srv.pump(None, 0.2)
            if len(ev["ended"]) <= i:
                out["notes"].append("episode %s did not end within %d s" % (r, args.compile_timeout))
                break
        srv.pump(None, 1.0)  # the worker's last lines and its exit
        out["seconds"] = time.perf_counter() - t0
        out["load_end"] = " ".join(open("/proc/loadavg").read().split()[:3])
        _, loop = srv.request("hyperkernel/loopStats", {})
        out["loop"] = loop if isinstance(loop, dict) else None
        out.update(episodes_ended=list(ev["ended"]), refusals_zh=ev["refusals_zh"],
                   refusals_en=ev["refusals_en"], log_messages=ev["logs"],
                   server_messages=dict(srv.counts))
    finally:
        out["exit_code"] = srv.stop()
        out["notes"] += srv.notes
    return out


def markdown_burst(r, args, info, argv):
    L = report_head("LSP loop: an episode's worst burst of event lines, zh-CN",
                    "bench/lsp/bench_lsp.py --events-burst", argv, info)
    L.append("- Load average at the start / the end: %s / %s (1, 5, 15 min)" % (
        r.get("load_start"), r.get("load_end")))
    L.append("- hkls: `%s` (%s, binary built %s)" % (args.hkls, info["hkls_version"],
                                                    info["hkls_built"]))
    L.append("- Scenario (%.0f s): a zh-CN session (`locale`), compile off, one file of our "
             "own (`refusals_kernel`: %d tunables, each the bound of a loop, which the "
             "search refuses), %d episodes of it on the simulated GPU (budget %d), one after "
             "another; the worker logs %d refusal lines back to back and the loop says "
             "each again in Chinese (`hk_tr_said`). The loop watch covers the episodes only."
             % (r.get("seconds", 0), args.burst_tunables, args.burst_episodes,
                args.burst_budget, args.burst_tunables))
    L.append("- episodes ended: %s; log messages %d, of which refusals said in Chinese "
             "(`未被搜索`) %d, in English (`not searched`) %d" % (
                 ", ".join("%s %s" % e for e in r.get("episodes_ended", [])) or "none",
                 r.get("log_messages", 0), r.get("refusals_zh", 0), r.get("refusals_en", 0)))
    L.append("")
    lp = r.get("loop") or {}
    L.append("The loop (`hyperkernel/loopStats`; limit %s ms):" % lp.get("limit_ms"))
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    rows = [
        ("iterations / past the limit (wall busy time)", "%s / %s" % (lp.get("iterations"),
                                                                   lp.get("over_limit"))),
        ("longest iteration, wall busy (ms)", fmt(lp.get("busy_ms_max"))),
        ("... it handled", lp.get("longest_during") or "-"),
        ("**most loop-thread CPU in one iteration (ms)** / iterations past the limit in CPU",
         "**%s** / %s" % (fmt(lp.get("cpu_ms_max")), lp.get("cpu_over_limit"))),
        ("... it handled", lp.get("cpu_longest_during") or "-"),
        ("loop-thread heap calls: most in one iteration", lp.get("heap_calls_max")),
    ]
    for a, b in rows:
        L.append("| %s | %s |" % (a, b))
    L.append("")
    top = lp.get("top_cpu") or []
    if top:
        L.append("The %d iterations with the most loop-thread CPU time:" % len(top))
        L.append("")
        L.append("| loop CPU (ms) | busy wall (ms) | heap calls | handled |")
        L.append("|---|---|---|---|")
        for t in top:
            L.append("| %s | %s | %s | %s |" % (fmt(t.get("cpu_ms")), fmt(t.get("busy_ms")),
                                               t.get("heap_calls"), t.get("during") or "-"))
        L.append("")
    L.append("- messages from the server, by method: %s" % ", ".join(
        "%s %d" % kv for kv in sorted(r.get("server_messages", {}).items())))
    L.append("- exit code after shutdown + exit: %s" % r.get("exit_code"))
    if r.get("notes"):
        L.append("")
        L.append("Notes from the run:")
        L += ["- " + n for n in r["notes"]]
    L.append("")
    return "\n".join(L)


def run_requests(args, tmp, big_text, log_dir):
    """The --requests scenario (session 33): every request and notification the server
    handles, one kind at a time, on the big file: before each kind the loop watch is reset
    (`hyperkernel/loopStats` with `reset`), the kind is sent --requests-n times with a
    pause after each (so that the pool's work comes back in its own iterations), and the
    watch is read again: the most loop-thread CPU in one iteration and what it handled,
    the most heap calls, and the wall time of the requests. Compile off (the compile's
    start and end: --compile-only). Returns the figures."""
    out = {"kinds": []}
    ws = os.path.join(tmp, "ws-requests")
    os.makedirs(ws)
    with open(os.path.join(ws, "big.cu"), "w") as f:
        f.write(big_text)
    home = os.path.join(tmp, "home-requests")
    os.makedirs(home)
    env = dict(os.environ, HOME=home, TMPDIR=home, XDG_DATA_HOME=os.path.join(home, "xdg"),
               XDG_CONFIG_HOME=os.path.join(home, "config"))
    cmd = [args.hkls, "--log", os.path.join(log_dir, "hkls-requests.log")]
    srv = Server("hkls-requests", cmd, ws, os.path.join(log_dir, "hkls-requests.stderr"),
                 env=env)
    big = Doc(os.path.join(ws, "big.cu"), big_text)
    rng = random.Random(args.seed)
    n = args.requests_n
    pause = args.requests_pause / 1000.0

    def call(method, params):
        """Sends a request, accepting an error reply (some kinds are asked of nothing:
        an episode that does not exist); returns (wall ms, result or None)."""
        rid = srv.next_id
        srv.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        t0 = time.perf_counter()
        srv.send(msg)
        try:
            t1, res = srv.pump(rid, 120)
        except LspError as e:
            if "failed" not in str(e):
                raise
            return (time.perf_counter() - t0) * 1000.0, None
        return (t1 - t0) * 1000.0, res

    def measure(kind, fn, count=n, note=""):
        call("hyperkernel/loopStats", {"reset": True})
        walls = []
        for i in range(count):
            w = fn(i)
            if w is not None:
                walls.append(w)
            srv.idle(pause)
        _, loop = call("hyperkernel/loopStats", {})
        top = loop.get("top_cpu", [])
        out["kinds"].append({
            "kind": kind, "n": count, "note": note,
            "wall_p50": pct(walls, 50) if walls else None,
            "wall_max": max(walls) if walls else None,
            "cpu_ms_max": loop.get("cpu_ms_max"), "cpu_longest_during":
            loop.get("cpu_longest_during"), "cpu_over_limit": loop.get("cpu_over_limit"),
            "heap_calls_max": loop.get("heap_calls_max"),
            "heap_calls_longest_during": loop.get("heap_calls_longest_during"),
            "faults_max": loop.get("faults_max"), "iterations": loop.get("iterations"),
            "top": top[:3]})
        print("  %-44s loop CPU max %6.2f ms (%s)" % (kind, loop.get("cpu_ms_max", 0),
                                                     loop.get("cpu_longest_during")),
              file=sys.stderr)

    db = os.path.join(home, "episodes.db")
    state = {}

    def init(_):
        ms, _ = initialize(srv, ws, {"compile": {"enabled": False}, "episodes": {"db": db}})
        return ms
    # initialize's own iteration: the watch counts from the start
    walls = [init(0)]
    srv.idle(pause)
    _, loop = call("hyperkernel/loopStats", {"reset": True})
    out["kinds"].append({"kind": "initialize + initialized", "n": 1, "note": "",
                         "wall_p50": walls[0], "wall_max": walls[0],
                         "cpu_ms_max": loop.get("cpu_ms_max"),
                         "cpu_longest_during": loop.get("cpu_longest_during"),
                         "cpu_over_limit": loop.get("cpu_over_limit"),
                         "heap_calls_max": loop.get("heap_calls_max"),
                         "heap_calls_longest_during": loop.get("heap_calls_longest_during"),
                         "faults_max": loop.get("faults_max"),
                         "iterations": loop.get("iterations"), "top": loop.get("top_cpu", [])[:3]})

    def sym():
        w, _ = call("textDocument/documentSymbol", {"textDocument": {"uri": big.uri}})
        return w

    def pos(k):
        name, line, col = big.kernels[k]
        return {"textDocument": {"uri": big.uri}, "position": {"line": line, "character": col + 1}}

    def rnd():
        return rng.randrange(len(big.kernels))

    measure("didOpen + documentSymbol (%d KB)" % (len(big_text.encode("utf-8")) // 1000), lambda i: time_it(
        lambda: (srv.notify("textDocument/didOpen", open_params(big)), sym())), count=1)
    measure("documentSymbol", lambda i: sym())
    measure("hover", lambda i: call("textDocument/hover", pos(rnd()))[0])
    measure("codeAction", lambda i: call("textDocument/codeAction", dict(
        pos(rnd()), range={"start": pos(rnd())["position"], "end": pos(rnd())["position"]},
        context={"diagnostics": []}))[0])
    measure("codeLens", lambda i: call("textDocument/codeLens",
                                       {"textDocument": {"uri": big.uri}})[0])

    def change(i):
        p = edit_round(srv, big, i, rng, state)
        return time_it(lambda: srv.notify("textDocument/didChange", p))
    measure("didChange (alone; its parse on the pool)", change, count=2 * n)

    def change_lens(i):
        p = edit_round(srv, big, i, rng, state)
        return time_it(lambda: (srv.notify("textDocument/didChange", p),
                                call("textDocument/codeLens", {"textDocument": {"uri": big.uri}})))
    measure("didChange + codeLens", change_lens, count=2 * n)
    measure("didSave", lambda i: time_it(lambda: srv.notify(
        "textDocument/didSave", {"textDocument": {"uri": big.uri}})))
    langs = ["zh-CN", "en"]
    measure("workspace/didChangeConfiguration (language)", lambda i: time_it(lambda: srv.notify(
        "workspace/didChangeConfiguration", {"settings": {"language": langs[i % 2]}})), count=4)
    measure("codeLens after a language change", lambda i: (srv.notify(
        "workspace/didChangeConfiguration", {"settings": {"language": langs[i % 2]}}),
        call("textDocument/codeLens", {"textDocument": {"uri": big.uri}})[0])[1], count=4,
        note="the lenses rendered again on the pool with the new titles (no parse: the model "
             "is of the text already); the request waits for them")
    measure("workspace/didChangeConfiguration (compile settings)", lambda i: time_it(
        lambda: srv.notify("workspace/didChangeConfiguration", {"settings": {"compile": {
            "enabled": False, "debounceMs": 300 + i}}})), count=4)

    def create_spec(i):
        name = big.kernels[rnd()][0]
        return call("workspace/executeCommand", {"command": "hyperkernel.createSpec",
                                                 "arguments": [{"uri": big.uri, "kernel": name}]})[0]
    measure("executeCommand hyperkernel.createSpec", create_spec, count=3,
            note="the skeleton inferred and written on the pool")
    measure("executeCommand hyperkernel.trustFolder", lambda i: call(
        "workspace/executeCommand", {"command": "hyperkernel.trustFolder", "arguments": []})[0],
        count=2)
    measure("executeCommand hyperkernel.untrustFolder", lambda i: call(
        "workspace/executeCommand", {"command": "hyperkernel.untrustFolder", "arguments": []})[0],
        count=2)
    measure("executeCommand hyperkernel.cancel (no such episode)", lambda i: call(
        "workspace/executeCommand", {"command": "hyperkernel.cancel",
                                     "arguments": [{"episode": 999999}]})[0], count=3)
    measure("executeCommand hyperkernel.showReport (no such episode)", lambda i: call(
        "workspace/executeCommand", {"command": "hyperkernel.showReport",
                                     "arguments": [{"episode": 999999}]})[0], count=3)
    measure("executeCommand hyperkernel.applyVersion (no such episode)", lambda i: call(
        "workspace/executeCommand", {"command": "hyperkernel.applyVersion", "arguments": [
            {"uri": big.uri, "kernel": big.kernels[0][0], "episode": 999999, "version": 1}]})[0],
        count=3)
    measure("hyperkernel/episodes", lambda i: call("hyperkernel/episodes", {})[0], count=5)
    measure("hyperkernel/history", lambda i: call("hyperkernel/history", {
        "uri": big.uri, "kernel": big.kernels[rnd()][0]})[0], count=5)
    measure("hyperkernel/report (no such episode)", lambda i: call(
        "hyperkernel/report", {"episode": 999999})[0], count=3)
    measure("hyperkernel/cancel (no such episode)", lambda i: call(
        "hyperkernel/cancel", {"episode": 999999})[0], count=3)
    measure("window/workDoneProgress/cancel", lambda i: time_it(lambda: srv.notify(
        "window/workDoneProgress/cancel", {"token": "hk-none-%d" % i})), count=3)
    measure("$/setTrace", lambda i: time_it(lambda: srv.notify(
        "$/setTrace", {"value": ["off", "messages"][i % 2]})), count=4)
    measure("$/cancelRequest (nothing waiting)", lambda i: time_it(lambda: srv.notify(
        "$/cancelRequest", {"id": 999999 + i})), count=3)
    measure("hyperkernel/loopStats", lambda i: call("hyperkernel/loopStats", {})[0], count=3)
    measure("didClose (%d KB)" % (len(big_text.encode("utf-8")) // 1000), lambda i: time_it(lambda: srv.notify(
        "textDocument/didClose", {"textDocument": {"uri": big.uri}})), count=1)
    big.version = 1
    measure("didOpen again + documentSymbol", lambda i: time_it(
        lambda: (srv.notify("textDocument/didOpen", open_params(big)), sym())), count=1)
    t0 = time.perf_counter()
    out["exit_code"] = srv.stop()
    out["shutdown_exit_ms"] = (time.perf_counter() - t0) * 1000.0
    return out


def time_it(fn):
    """Wall ms of fn() (a notification alone: the time to write it)."""
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000.0


def markdown_requests(r, args, info, argv):
    L = report_head("Every request on the loop (`--requests`)", "bench/lsp/bench_lsp.py --requests",
                    argv, info)
    L.append("- hkls: `%s` (%s, binary built %s)" % (args.hkls, info.get("hkls_version"),
                                                    info.get("hkls_built")))
    L.append("- File: `bench/gen_kernels.py --kernels %d --seed %d`: %s lines, %s bytes, %s "
             "kernels" % (args.kernels, args.seed, info["lines"], info["bytes"],
                          info["kernels"]))
    L.append("- Scenario: compile off; each kind sent %d times (unless the table says), %d ms "
             "of reading after each; the loop watch reset before each kind "
             "(`hyperkernel/loopStats` `{\"reset\": true}`)." % (args.requests_n,
                                                                 args.requests_pause))
    L.append("- Load average at the start / the end: %s / %s (1, 5, 15 min)" %
             (r.get("load_before"), r.get("load_after")))
    L.append("- **loop CPU max**: the most loop-thread CPU time in one iteration while that "
             "kind ran (limit %.1f ms), and what that iteration handled." % 5.0)
    L.append("")
    L.append("| request | n | wall p50 (ms) | wall max | loop CPU max (ms) | iteration | heap "
             "calls max (iteration) | page faults max | past 5 ms |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for k in r["kinds"]:
        L.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            k["kind"], k["n"], fmt(k["wall_p50"]), fmt(k["wall_max"]), fmt(k["cpu_ms_max"]),
            k.get("cpu_longest_during") or "-", "%s (%s)" % (
                k.get("heap_calls_max"), k.get("heap_calls_longest_during") or "-"),
            k.get("faults_max"),
            k.get("cpu_over_limit")))
    L.append("")
    notes = [k for k in r["kinds"] if k.get("note")]
    for k in notes:
        L.append("- %s: %s" % (k["kind"], k["note"]))
    L.append("- shutdown + exit: %s ms; exit code %s" % (fmt(r.get("shutdown_exit_ms")),
                                                         r.get("exit_code")))
    return "\n".join(L) + "\n"


def report_head(title, writer, argv, info):
    """A report's first lines: its title with the time, who wrote it, the command, the commit
    and the machine."""
    return ["# %s (%s)" % (title, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())), "",
            "Written by `%s`; the figures below are its output, unedited." % writer, "",
            "- Command: `%s`" % " ".join(argv),
            "- Commit: `%s`%s" % (info["commit"], " (uncommitted changes under server/: %s)"
                                  % info["dirty"] if info["dirty"] else ""),
            "- Machine: %s, %s CPUs (%s threads/core), %s RAM" % (
                info.get("Model name", "?"), info.get("CPU(s)", info.get("nproc")),
                info.get("Thread(s) per core", "?"), info.get("RAM", "?"))]


def markdown_busy(r, args, info, argv):
    L = report_head("LSP loop under load: hkls busy", "bench/lsp/bench_lsp.py --busy", argv, info)
    L.append("- Load average at the start / the end of the busy phase: %s / %s (1, 5, 15 "
             "min); driver and server at nice %d; %d CPU burners of the driver's own (a "
             "Python spin loop each) at nice 0, besides whatever else the machine ran" % (
                 r.get("load_start"), r.get("load_end"), os.nice(0), r["burners"]))
    L.append("- hkls: `%s` (%s, binary built %s)" % (args.hkls, info["hkls_version"],
                                                    info["hkls_built"]))
    L.append("- File: `bench/gen_kernels.py --kernels %d --seed %d`: %d lines, %d bytes, %d "
             "kernels" % (args.kernels, args.seed, info["lines"], info["bytes"],
                          info["kernels"]))
    L.append("- Scenario (%.0f s, %d rounds): the big file open; each round a didChange "
             "inserting a space or a line in a random kernel body + documentSymbol, one "
             "removing it + documentSymbol, a hover and a codeAction at a random kernel's "
             "name, a codeLens on the big file, a "
             "codeAction on saxpy.cu's kernel (the episode's file: Apply actions once an "
             "episode found a version), then %d ms of reading what the server sends. "
             "Episodes of saxpy on the simulated GPU (`episodes.simulate`, budget %d) run "
             "one after another, the next started when one ends. compile_commands.json "
             "(%d entries, %d bytes) is rewritten (a -D changes in every entry) every %g s "
             "and big.cu saved, which re-reads it and recompiles (`compile.enabled`, nvcc). "
             "At the end big.cu is closed and opened again (with a documentSymbol)."
             % (r["seconds"], r["rounds"], args.busy_pause, args.busy_budget,
                args.ccdb_entries, r["ccdb_bytes"], args.ccdb_every))
    L.append("- **wall**: first byte written to the last byte of the reply. **CPU**: the "
             "server's on-CPU time over the request, all its threads (pool parses, "
             "compiles' and episodes' bookkeeping included), /proc/PID/task/*/schedstat. "
             "**wait**: its threads' run-queue wait over the request.")
    L.append("")
    L.append("| request | n | wall p50 | wall p99 | wall max | CPU p50 | CPU p99 | wait p99 |")
    L.append("|---|---|---|---|---|---|---|---|")
    for kind, k in r["kinds"].items():
        w, c, q = k["wall"], k["cpu"], k["wait"]
        L.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
            kind, w["n"], fmt(w["p50"]), fmt(w["p99"]), fmt(w["max"]), fmt(c["p50"]),
            fmt(c["p99"]), fmt(q["p99"])))
    L.append("")
    lp = r.get("loop") or {}
    lg = lp.get("longest") or {}
    L.append("The loop (`hyperkernel/loopStats`, the whole run; limit %s ms):" %
             lp.get("limit_ms"))
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    rows = [
        ("iterations / past the limit (wall busy time)", "%s / %s" % (lp.get("iterations"),
                                                                   lp.get("over_limit"))),
        ("busy time p99 (ms, bucket edge) / mean (ms)", "%s / %s" % (
            fmt(lp.get("busy_ms_p99")), fmt(lp.get("busy_ms_mean")))),
        ("longest iteration, wall busy (ms)", fmt(lp.get("busy_ms_max"))),
        ("... it handled", lp.get("longest_during") or "-"),
        ("... its loop-thread CPU (ms) / page faults / times preempted", "%s / %s / %s" % (
            fmt(lg.get("cpu_ms")), lg.get("faults"), lg.get("preempted"))),
        ("most loop-thread CPU in one iteration (ms) / iterations past the limit in CPU",
         "%s / %s" % (fmt(lp.get("cpu_ms_max")), lp.get("cpu_over_limit"))),
        ("... it handled", lp.get("cpu_longest_during") or "-"),
        ("loop-thread page faults: most in one iteration / all", "%s / %s" % (
            lp.get("faults_max"), lp.get("faults_total"))),
    ]
    rows.append(("loop-thread heap calls (allocations + frees): most in one iteration",
                 lp.get("heap_calls_max")))
    rows.append(("... it handled", lp.get("heap_calls_longest_during") or "-"))
    for a, b in rows:
        L.append("| %s | %s |" % (a, b))
    L.append("")
    top = lp.get("top_cpu") or []
    if top:
        L.append("The %d iterations with the most loop-thread CPU time:" % len(top))
        L.append("")
        L.append("| loop CPU (ms) | busy wall (ms) | heap calls | handled |")
        L.append("|---|---|---|---|")
        for t in top:
            L.append("| %s | %s | %s | %s |" % (fmt(t.get("cpu_ms")), fmt(t.get("busy_ms")),
                                               t.get("heap_calls"), t.get("during") or "-"))
        L.append("")
    L.append("What ran meanwhile:")
    L.append("")
    ended = r["episodes_ended"]
    L.append("- episodes: %d started, %d ended (%s); %d `$/progress` notifications" % (
        r["episodes_started"], len(ended),
        ", ".join("%s %s" % (e, st) for e, st in ended) or "none", r["progress_notes"]))
    L.append("- publishDiagnostics: %d for big.cu, %d for saxpy.cu" % (
        r["diagnostics_big"], r["diagnostics_saxpy"]))
    L.append("- compile_commands.json rewritten %d times" % r["ccdb_rewrites"])
    L.append("- documentSymbol replies holding all %d kernels: %d of %d" % (
        info["kernels"], r["symbols_complete"], 2 * r["rounds"]))
    L.append("- messages from the server, by method: %s" % ", ".join(
        "%s %d" % kv for kv in sorted(r["server_messages"].items())))
    L.append("- server children at the end: %s" % (", ".join(r["compilers_seen_at_end"])
                                                  or "none"))
    L.append("- exit code after shutdown + exit: %s" % r["exit_code"])
    if r["notes"]:
        L.append("")
        L.append("Notes from the run:")
        L += ["- " + n for n in r["notes"]]
    L.append("")
    return "\n".join(L)


def machine_info():
    info = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for ln in out.splitlines():
            k, _, v = ln.partition(":")
            if k.strip() in ("Model name", "CPU(s)", "Thread(s) per core"):
                info[k.strip()] = v.strip()
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for ln in f:
                if ln.startswith("MemTotal:"):
                    info["RAM"] = "%.1f GiB" % (int(ln.split()[1]) / 1024.0 / 1024.0)
    except OSError:
        pass
    info["nproc"] = os.cpu_count()
    return info


def git(*a):
    try:
        return subprocess.run(["git", "-C", REPO] + list(a), capture_output=True,
                              text=True).stdout.rstrip("\n")
    except OSError:
        return ""


def version_of(cmd):
    try:
        r = subprocess.run(cmd + ["--version"], capture_output=True, text=True, timeout=20)
        return (r.stdout or r.stderr).strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "?"


def verdict(v, target):
    if v is None:
        return "n/a"
    return "ok" if v <= target else "MISSED"


def fmt(v, unit=""):
    return "n/a" if v is None else "%.1f%s" % (v, unit) if v >= 10 else "%.2f%s" % (v, unit)


def markdown_compile_loop(cr):
    """The loop watch's figures of the compile-on run: what the compile's start and end
    cost the loop thread (issue 14: nothing over 5 ms on the big file)."""
    L = []
    for key, when in (("loop_compile_done", "up to the big file's compile result"),
                      ("loop_end", "the whole compile-on run (the edits that restart it too)")):
        lp = cr.get(key)
        if not lp:
            continue
        L.append("- loop (`hyperkernel/loopStats`), %s: %s iterations, %s past %s ms of wall "
                 "busy time, most loop-thread CPU in one %s ms (%s), %s past the limit in CPU"
                 % (when, lp.get("iterations"), lp.get("over_limit"), lp.get("limit_ms"),
                    fmt(lp.get("cpu_ms_max")), lp.get("cpu_longest_during") or "-",
                    lp.get("cpu_over_limit")))
        for t in lp.get("top_cpu") or []:
            L.append("  - %s ms loop CPU, %s ms busy, %s heap calls: %s" % (
                fmt(t.get("cpu_ms")), fmt(t.get("busy_ms")), t.get("heap_calls"),
                t.get("during") or "-"))
    return L


def markdown_compile_only(cr, args, info, argv):
    L = report_head("LSP loop with the background compile on", "bench/lsp/bench_lsp.py "
                    "--compile-only", argv, info)
    L.append("- hkls: `%s` (%s, binary built %s)" % (args.hkls, info["hkls_version"],
                                                    info["hkls_built"]))
    L.append("- File: `bench/gen_kernels.py --kernels %d --seed %d`: %d lines, %d bytes, %d "
             "kernels" % (args.kernels, args.seed, info["lines"], info["bytes"],
                          info["kernels"]))
    L.append("- compile of the big file: %s s until its diagnostics were published (%s "
             "diagnostics)" % (fmt(cr["compile_s"]), cr["diagnostics"]))
    L += markdown_compile_loop(cr)
    L.append("")
    return "\n".join(L)


def markdown(res, args, info, argv, load_before, load_after):
    h = res["hkls"]
    c = res.get("clangd")

    def get(r, k, sub=None):
        if r is None or k not in r or r[k] is None:
            return None
        v = r[k]
        return v.get(sub) if sub else v

    L = report_head("LSP benchmark: hkls vs clangd", "bench/lsp/bench_lsp.py", argv, info)
    L.append("- Load average before / after the run: %s / %s (1, 5, 15 min); "
             "driver and servers ran at nice %d" % (load_before, load_after, os.nice(0)))
    L.append("- hkls: `%s` (%s, binary built %s: the commit above is HEAD when the run "
             "started), background compile OFF (`compile.enabled=false`) for the latency and "
             "memory figures" % (args.hkls, info["hkls_version"], info["hkls_built"]))
    if c:
        L.append("- clangd: `%s` (%s), flags `%s`; compile_commands.json entry: `%s` "
                 "(WS/.clang-cuda-shim: 3 headers that let clang 14 parse CUDA 13's headers, "
                 "see bench/lsp/README.md)" % (
                     args.clangd, info["clangd_version"], " ".join(args.clangd_flags),
                     info["clangd_cc"]))
    L.append("- File: `bench/gen_kernels.py --kernels %d --seed %d`: %d lines, %d bytes, %d "
             "kernels found by the driver; %d more files (`--kernels %d`, seeds 2..) for the "
             "%d-file figure" % (args.kernels, args.seed, info["lines"], info["bytes"],
                                 info["kernels"], args.files - 1, args.small_kernels, args.files))
    L.append("- Requests: %d opens of the big file (copies, then the file kept open) each "
             "followed by documentSymbol; %d hovers at kernel names (after 10 warm-up); %d "
             "edit rounds (didChange of one space or one whole line in a random kernel body, "
             "inserted then removed, each followed by documentSymbol; %d rounds for clangd, "
             "whose rounds take seconds each here). **wall** is from the "
             "first byte written to the last byte of the reply. **CPU** is the server's "
             "on-CPU time for that request (all its threads, /proc/PID/task/*/schedstat): "
             "what it costs on an idle core; the difference is mostly time spent waiting for "
             "a CPU on this shared machine (run-queue wait is listed below)."
             % (args.opens, args.hovers, args.rounds, args.clangd_rounds))
    L.append("")
    hdr = "| measure | target | hkls wall | hkls CPU | clangd wall | clangd CPU | hkls vs target |"
    L.append(hdr)
    L.append("|---|---|---|---|---|---|---|")

    def row(label, target, hw, hc, cw, cc, unit=""):
        if target is None:
            v = ""
        else:
            v = "wall %s, CPU %s" % (verdict(hw, target), verdict(hc, target)) \
                if hc is not None else verdict(hw, target)
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            label, ("<= %g" % target) if target else "", fmt(hw), fmt(hc) if hc is not None
            else "", fmt(cw) if c else "", fmt(cc) if c and cc is not None else "", v))

    row("didOpen -> first documentSymbol (ms)", 300.0, get(h, "first_symbols_ms"),
        get(h, "first_symbols_cpu_ms"), get(c, "first_symbols_ms"), get(c, "first_symbols_cpu_ms"))
    row("same, median of %d opens (ms)" % args.opens, None, get(h, "open_symbols", "p50"),
        get(h, "open_symbols_cpu", "p50"), get(c, "open_symbols", "p50"),
        get(c, "open_symbols_cpu", "p50"))
    for q in ("p50", "p99"):
        row("hover %s (ms)" % q, 2.0 if q == "p99" else None, get(h, "hover", q),
            get(h, "hover_cpu", q), get(c, "hover", q), get(c, "hover_cpu", q))
    for q in ("p50", "p99"):
        row("edit + documentSymbol %s (ms)" % q, 10.0 if q == "p99" else None,
            get(h, "edit_symbols", q), get(h, "edit_symbols_cpu", q), get(c, "edit_symbols", q),
            get(c, "edit_symbols_cpu", q))
    lp = get(h, "loop") or {}
    if lp.get("watched"):
        row("longest loop iteration, whole run (ms; hkls only)", 5.0, lp.get("busy_ms_max"),
            None, None, None)
    row("idle RSS after open (MB)", 30.0, get(h, "idle_rss_mb"), None, get(c, "idle_rss_mb"),
        None)
    row("RSS with %d files open (MB)" % (get(h, "files_open") or 0), None, get(h, "rss_100_mb"),
        None, get(c, "rss_100_mb"), None)
    L.append("")
    L.append("Details:")
    L.append("")
    L.append("| | hkls | %s |" % ("clangd" if c else "-"))
    L.append("|---|---|---|")
    det = [
        ("initialize (ms)", "initialize_ms", None),
        ("RSS after initialize, no file open (MB)", "start_rss_mb", None),
        ("kernels in the first documentSymbol (of %d)" % info["kernels"],
         "first_symbols_kernels", None),
        ("top-level symbols", "symbols_top_level", None),
        ("documentSymbol reply size (bytes, as JSON)", "symbols_reply_bytes", None),
        ("open + symbols: run-queue wait, median (ms)", "open_symbols_wait", "p50"),
        ("hover: max wall / max CPU (ms)", ("hover", "hover_cpu"), "max"),
        ("hover: mean CPU (ms)", "hover_cpu", "mean"),
        ("hover: run-queue wait p99 (ms)", "hover_wait", "p99"),
        ("hovers naming the kernel (of %d)" % args.hovers, "hover_ok", None),
        ("edit + symbols: max wall / max CPU (ms)", ("edit_symbols", "edit_symbols_cpu"), "max"),
        ("edit + symbols: mean CPU (ms)", "edit_symbols_cpu", "mean"),
        ("edit + symbols: run-queue wait p99 (ms)", "edit_symbols_wait", "p99"),
        ("edit rounds measured", "rounds", None),
        ("edit rounds with all kernels in the reply", "edit_symbols_complete", None),
        ("peak RSS, VmHWM (MB)", "peak_rss_mb", None),
        ("loop iterations / iterations past 5 ms", ("loop_iterations", "loop_over"), None),
        ("loop iteration busy time p99 (ms, its histogram bucket's upper edge)", "loop_p99",
         None),
        ("longest loop iteration handled", "loop_during", None),
        ("loop thread's CPU time, longest iteration (ms) / iterations past 5 ms",
         ("loop_cpu_max", "loop_cpu_over"), None),
        ("iteration with the most loop CPU time handled", "loop_cpu_during", None),
        ("loop thread's page faults: most in one iteration / in the whole run",
         ("loop_faults_max", "loop_faults_total"), None),
        ("iteration with the most page faults handled", "loop_faults_during", None),
        ("longest loop iteration: its loop CPU time (ms) / page faults / times preempted",
         ("loop_longest_cpu", "loop_longest_faults", "loop_longest_preempted"), None),
        ("exit code after shutdown + exit", "exit_code", None),
    ]

    def f(v):
        if v is None:
            return "n/a"
        return fmt(v) if isinstance(v, float) else str(v)

    for label, k, sub in det:
        if isinstance(k, tuple):
            hv = " / ".join(f(get(h, x, sub)) for x in k)
            cv = " / ".join(f(get(c, x, sub)) for x in k) if c else ""
        else:
            hv, cv = f(get(h, k, sub)), (f(get(c, k, sub)) if c else "")
        L.append("| %s | %s | %s |" % (label, hv, cv))
    cr = res.get("hkls_compiling")
    if cr:
        L.append("")
        L.append("hkls with the background compile ON (`compile.enabled=true`, debounce 0), "
                 "requests sent while nvcc compiles the big file:")
        L.append("")
        L.append("- compiler processes seen under hkls: %s" % (", ".join(cr["compiler_seen"])
                                                             or "none"))
        L.append("- compile of the big file: %s s until its diagnostics were published (%s "
                 "diagnostics)" % (fmt(cr["compile_s"]), cr["diagnostics"]))
        for label, k in (("hover while nvcc runs", "hover"),
                         ("documentSymbol while nvcc runs", "symbols"),
                         ("edit + documentSymbol, each edit cancelling and restarting the "
                          "compile", "edit_symbols")):
            s = cr.get(k + "_while_compiling")
            sc = cr.get(k + "_cpu_while_compiling")
            if s:
                L.append("- %s: n=%d, wall p50 %s / p99 %s / max %s ms; server CPU p50 %s / "
                         "p99 %s ms" % (label, s["n"], fmt(s["p50"]), fmt(s["p99"]),
                                        fmt(s["max"]), fmt(sc["p50"]), fmt(sc["p99"])))
            else:
                L.append("- %s: no samples (the compiler was not running)" % label)
        L.append("- edit rounds that found a compiler child running: %d of %d" % (
            cr["edit_rounds_with_compiler_running"], args.compile_edit_rounds))
        L += markdown_compile_loop(cr)
        L.append("- shutdown with %d compiler processes in flight: exit code %s in %s s, "
                 "%d of them still running 0.5 s later (zombies not counted)" % (
                     cr["compilers_at_stop"], cr["exit_code"], fmt(cr["stop_s"]),
                     cr["compilers_left_after_exit"]))
    notes = []
    for k in ("hkls", "clangd", "hkls_compiling"):
        if res.get(k):
            notes += ["%s: %s" % (k, n) for n in res[k].get("notes", [])]
    if notes:
        L.append("")
        L.append("Notes from the run:")
        L += ["- " + n for n in notes]
    L.append("")
    return "\n".join(L)


def write_report(md, info, res, args):
    """The Markdown report to --out (or stdout) and every figure to --json."""
    if args.out:
        with open(args.out, "w") as f:
            f.write(md)
        print("bench_lsp: wrote %s" % args.out, file=sys.stderr)
    else:
        print(md)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"info": info, "results": res}, f, indent=1, default=str)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hkls", required=True, help="path of the built hkls")
    ap.add_argument("--clangd", default="clangd", help="clangd to compare with ('' to skip)")
    ap.add_argument("--kernels", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hovers", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=500)
    ap.add_argument("--clangd-rounds", type=int, default=20,
                    help="edit rounds for clangd (each takes seconds there)")
    ap.add_argument("--opens", type=int, default=3,
                    help="didOpen + documentSymbol measurements of the big file (the "
                         "first is the headline figure)")
    ap.add_argument("--files", type=int, default=100, help="files open for the second RSS figure")
    ap.add_argument("--small-kernels", type=int, default=20,
                    help="kernels in each of the other files")
    ap.add_argument("--no-compile-run", action="store_true",
                    help="skip the hkls run with the background compile on")
    ap.add_argument("--compile-only", action="store_true",
                    help="only the compile-on run (hkls), with the loop watch's figures")
    ap.add_argument("--compile-timeout", type=int, default=300,
                    help="seconds hkls may compile the big file in the compile run")
    ap.add_argument("--compile-edit-rounds", type=int, default=30)
    ap.add_argument("--cuda-path", default="/usr/local/cuda")
    ap.add_argument("--nice", type=int, default=None,
                    help="run the driver and the servers at this nice value (e.g. -20 on a "
                         "shared machine, needs root); recorded in the report")
    ap.add_argument("--busy", action="store_true",
                    help="instead of the usual runs, the loaded scenario: episodes on the "
                         "simulated GPU, edits and requests, compile_commands.json changing "
                         "and CPU burners, all at once (README.md)")
    ap.add_argument("--requests", action="store_true",
                    help="every request kind on the big file, one at a time, with the loop "
                         "watch reset before each (hkls only)")
    ap.add_argument("--requests-n", type=int, default=20, help="requests of each kind")
    ap.add_argument("--requests-pause", type=int, default=300,
                    help="ms of reading what the server sends after each request")
    ap.add_argument("--events-burst", action="store_true",
                    help="an episode's worst burst of event lines in a zh-CN session: the "
                         "loop's longest iteration (session 35)")
    ap.add_argument("--burst-tunables", type=int, default=40,
                    help="--events-burst: refused tunables, one log line each")
    ap.add_argument("--burst-episodes", type=int, default=3)
    ap.add_argument("--burst-budget", type=int, default=3)
    ap.add_argument("--busy-seconds", type=float, default=90.0)
    ap.add_argument("--busy-budget", type=int, default=5, help="each episode's budget")
    ap.add_argument("--busy-pause", type=int, default=20,
                    help="ms of reading the server's messages after each round")
    ap.add_argument("--burn", type=int, default=None,
                    help="CPU burners for --busy (default: one per CPU)")
    ap.add_argument("--ccdb-entries", type=int, default=20000)
    ap.add_argument("--ccdb-every", type=float, default=5.0,
                    help="seconds between rewrites of compile_commands.json")
    ap.add_argument("--out", help="write the Markdown report here (else stdout)")
    ap.add_argument("--json", help="write all figures as JSON here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary workspace")
    args = ap.parse_args()
    args.hkls = os.path.abspath(args.hkls)
    if not os.access(args.hkls, os.X_OK):
        sys.exit("bench_lsp: hkls not executable: %s" % args.hkls)
    if args.clangd and not shutil.which(args.clangd):
        sys.exit("bench_lsp: clangd not found: %s (pass --clangd '' to skip it)" % args.clangd)
    args.clangd_flags = ["--background-index=false", "--log=error", "-j=2"]
    argv = [os.path.relpath(sys.argv[0], REPO) if sys.argv[0].startswith(REPO) else sys.argv[0]]
    argv = ["python3"] + argv + sys.argv[1:]
    load_before = open("/proc/loadavg").read().split()[:3]
    if args.nice is not None:
        os.nice(args.nice - os.nice(0))  # the servers inherit it

    tmp = tempfile.mkdtemp(prefix="hk-bench-lsp.")
    log_dir = os.path.join(tmp, "logs")
    os.makedirs(log_dir)
    res = {}
    try:
        def gen(k, seed):
            return subprocess.run([sys.executable, GEN, "--kernels", str(k), "--seed", str(seed)],
                                  check=True, capture_output=True, text=True).stdout
        big_text = gen(args.kernels, args.seed)
        small = ([] if args.busy or args.requests or args.events_burst else
                 [gen(args.small_kernels, s) for s in range(2, args.files + 1)])
        ws = {}
        for name in ("hkls", "clangd"):
            ws[name] = os.path.join(tmp, "ws-" + name)
            os.makedirs(ws[name])
            with open(os.path.join(ws[name], "big.cu"), "w") as f:
                f.write(big_text)
            for i, t in enumerate(small):
                with open(os.path.join(ws[name], "small_%03d.cu" % (i + 2)), "w") as f:
                    f.write(t)
            for i in range(1, args.opens):
                with open(os.path.join(ws[name], "big_open%d.cu" % i), "w") as f:
                    f.write(big_text)

        def docs(w):
            big = Doc(os.path.join(w, "big.cu"), big_text)
            extra = [Doc(os.path.join(w, "small_%03d.cu" % (i + 2)), t)
                     for i, t in enumerate(small)]
            return big, extra

        info = machine_info()
        info["commit"] = git("rev-parse", "HEAD")
        info["dirty"] = " ".join(ln[3:] for ln in git("status", "--porcelain", "server").splitlines())
        info["hkls_version"] = version_of([args.hkls])
        info["hkls_built"] = time.strftime("%Y-%m-%d %H:%M UTC",
                                           time.gmtime(os.path.getmtime(args.hkls)))
        big, extra = docs(ws["hkls"])
        info["lines"] = len(big.lines) - (1 if big_text.endswith("\n") else 0)
        info["bytes"] = len(big_text.encode("utf-8"))
        info["kernels"] = len(big.kernels)

        if args.requests:
            print("hkls: every request ...", file=sys.stderr)
            lb = open("/proc/loadavg").read().split()[:3]
            res["hkls_requests"] = run_requests(args, tmp, big_text, log_dir)
            res["hkls_requests"]["load_before"] = " ".join(lb)
            res["hkls_requests"]["load_after"] = " ".join(open("/proc/loadavg").read().split()[:3])
            write_report(markdown_requests(res["hkls_requests"], args, info, argv), info, res,
                         args)
            return 0

        if args.events_burst:
            print("hkls: events burst ...", file=sys.stderr)
            res["hkls_burst"] = run_burst(args, tmp, log_dir)
            write_report(markdown_burst(res["hkls_burst"], args, info, argv), info, res, args)
            return 0

        if args.busy:
            if args.burn is None:
                args.burn = os.cpu_count() or 1
            print("hkls: busy run ...", file=sys.stderr)
            res["hkls_busy"] = run_busy(args, tmp, big_text, log_dir)
            write_report(markdown_busy(res["hkls_busy"], args, info, argv), info, res, args)
            return 0

        if args.compile_only:
            print("hkls: compile-on run ...", file=sys.stderr)
            cbig, _ = docs(ws["hkls"])
            res["hkls_compiling"] = run_hkls_compiling(args, ws["hkls"], cbig, log_dir)
            write_report(markdown_compile_only(res["hkls_compiling"], args, info, argv),
                         info, res, args)
            return 0

        print("hkls: latency run (compile off) ...", file=sys.stderr)
        res["hkls"] = run_server(
            "hkls", [args.hkls, "--log", os.path.join(log_dir, "hkls-server.log")],
            ws["hkls"], big, extra, {"compile": {"enabled": False}}, args, log_dir, False,
            args.rounds)

        if args.clangd:
            w = ws["clangd"]
            shim = os.path.join(w, ".clang-cuda-shim")
            os.makedirs(shim)
            for n, t in CLANG_SHIM.items():
                with open(os.path.join(shim, n), "w") as f:
                    f.write(t)
            flags = ["clang++", "-x", "cuda", "--cuda-path=" + args.cuda_path,
                     "--cuda-gpu-arch=sm_80", "-nocudalib", "-Wno-unknown-cuda-version",
                     "-I" + shim, "-c"]
            files = (["big.cu"] + ["big_open%d.cu" % i for i in range(1, args.opens)]
                     + ["small_%03d.cu" % (i + 2) for i in range(len(small))])
            with open(os.path.join(w, "compile_commands.json"), "w") as f:
                json.dump([{"directory": w, "file": os.path.join(w, fn),
                            "arguments": flags + [os.path.join(w, fn)]} for fn in files], f)
            info["clangd_cc"] = " ".join(flags + ["FILE"]).replace(w, "WS")
            info["clangd_version"] = version_of([args.clangd])
            cbig, cextra = docs(w)
            print("clangd: same run ...", file=sys.stderr)
            res["clangd"] = run_server(
                "clangd", [args.clangd] + args.clangd_flags + ["--compile-commands-dir=" + w],
                w, cbig, cextra, None, args, log_dir, True, args.clangd_rounds)
            d = res["clangd"].get("diagnostics_after_open")
            res["clangd"]["notes"].append(
                "diagnostics clangd published for the big file after opening it: %s "
                "(0 means it parsed the CUDA file cleanly)" % d)

        if not args.no_compile_run:
            print("hkls: compile-on run ...", file=sys.stderr)
            cbig, _ = docs(ws["hkls"])
            res["hkls_compiling"] = run_hkls_compiling(args, ws["hkls"], cbig, log_dir)

        load_after = open("/proc/loadavg").read().split()[:3]
        write_report(markdown(res, args, info, argv, " ".join(load_before), " ".join(load_after)),
                     info, res, args)
        h = res["hkls"]
        missed = [k for k, v in (("first_symbols_ms", h["first_symbols_ms"]),
                                 ("hover_p99_ms", h["hover"]["p99"]),
                                 ("edit_symbols_p99_ms", h["edit_symbols"]["p99"]),
                                 ("idle_rss_mb", h["idle_rss_mb"]))
                  if v is None or v > TARGETS[k]]
        print("bench_lsp: hkls targets missed: %s" % (", ".join(missed) or "none"),
              file=sys.stderr)
        return 0
    except LspError as e:
        print("bench_lsp: %s (logs in %s)" % (e, log_dir), file=sys.stderr)
        args.keep = True
        return 1
    finally:
        if args.keep:
            print("bench_lsp: workspace kept: %s" % tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
