#!/usr/bin/env python3
"""The editor flow of issue 4 on a real NVIDIA GPU, from code action to applied edit.

Drives the built hkls over stdio as VS Code does (same capabilities: work-done progress,
applyEdit, documentChanges, markdown hover) with only the Python standard library, so it
runs on the GPU machine, which has python3 but no Node or Neovim:

  open bench/kernels/KERNEL.cu -> code action "Optimize for NVIDIA" -> executeCommand
  -> answer window/workDoneProgress/create -> $/progress (rising) -> Information diagnostic
  -> hover version table -> code action "Apply vN" (versioned edit) -> apply + didChange
  -> hyperkernel.applied {ok: true}

Usage: gpu_flow.py HKLS [--kernel saxpy] [--budget 8] [--minutes 5] [--out DIR]
Writes DIR/gpu_flow.json (what ran and its figures: device, times, speedup, bandwidth,
versions, progress timeline, the applied text) and copies the episode's reports there.
Where no NVIDIA GPU is found it prints "skipped: no GPU" and exits 77 (the gpu layer's
convention: ctest's SKIP_RETURN_CODE counts it as skipped). Exit 1: a check failed; 2: could
not run.
"""
import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SKIPPED = 77  # ctest's SKIP_RETURN_CODE for this test (tests/editors/CMakeLists.txt)
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


class Fail(Exception):
    pass


def has_gpu():
    if os.path.exists("/dev/nvidia0"):
        return True
    try:
        return subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def uri_of(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path))


def path_of(uri):
    if not uri.startswith("file://"):
        raise Fail("not a file URI: %s" % uri)
    return urllib.parse.unquote(uri[len("file://"):])


class Client:
    """A minimal LSP client: framing, requests with ids, answers to server requests."""

    def __init__(self, argv, cwd):
        self.p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, bufsize=0)
        self.buf = b""
        self.next_id = 1
        self.responses = {}
        self.notes = []           # (time, method, params)
        self.server_requests = []  # (time, method, params)

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=60):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        self.pump_until(lambda: rid in self.responses, timeout, method)
        r = self.responses.pop(rid)
        if "error" in r:
            raise Fail("%s: error %s" % (method, json.dumps(r["error"])))
        return r.get("result")

    def _read(self, timeout):
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            return
        chunk = os.read(self.p.stdout.fileno(), 1 << 20)
        if not chunk:
            raise Fail("hkls closed its output (exit %s)" % self.p.poll())
        self.buf += chunk
        while True:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if not sep:
                return
            n = None
            for line in head.split(b"\r\n"):
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    n = int(v)
            if n is None:
                raise Fail("bad header from hkls: %r" % head)
            if len(rest) < n:
                return
            self.buf = rest[n:]
            self._dispatch(json.loads(rest[:n]))

    def _dispatch(self, m):
        now = time.time()
        if "method" in m and "id" in m:
            self.server_requests.append((now, m["method"], m.get("params")))
            result = None
            if m["method"] == "window/showDocument":
                result = {"success": True}
            elif m["method"] == "workspace/applyEdit":
                result = {"applied": False, "failureReason": "gpu_flow applies code action edits itself"}
            elif m["method"] == "workspace/configuration":
                result = [None for _ in (m.get("params") or {}).get("items", [])]
            self.send({"jsonrpc": "2.0", "id": m["id"], "result": result})
        elif "method" in m:
            self.notes.append((now, m["method"], m.get("params")))
        elif "id" in m:
            self.responses[m["id"]] = m

    def pump_until(self, pred, timeout, what):
        end = time.time() + timeout
        while True:
            v = pred()
            if v:
                return v
            left = end - time.time()
            if left <= 0:
                raise Fail("timed out after %ds waiting for %s" % (timeout, what))
            self._read(min(left, 0.5))

    def stop(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.p.wait(timeout=10)
        except Exception:  # noqa: BLE001 -- any failure: kill below
            pass
        if self.p.poll() is None:
            self.p.kill()


def offset_at(text, pos):
    lines = text.split("\n")
    if pos["line"] >= len(lines):
        return len(text)
    return sum(len(l) + 1 for l in lines[:pos["line"]]) + utf16_to_index(lines[pos["line"]], pos["character"])


def utf16_to_index(line, units):
    n = 0
    for i, ch in enumerate(line):
        if n >= units:
            return i
        n += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def position_of(text, needle):
    i = text.index(needle)
    line = text.count("\n", 0, i)
    col = i - (text.rfind("\n", 0, i) + 1)
    return {"line": line, "character": len(text[i - col:i].encode("utf-16-le")) // 2}


def apply_edits(text, edits):
    spans = sorted(((offset_at(text, e["range"]["start"]), offset_at(text, e["range"]["end"]), e["newText"])
                    for e in edits), key=lambda s: s[0])
    out, at = [], 0
    for s, e, t in spans:
        if s < at:
            raise Fail("overlapping edits")
        out.append(text[at:s])
        out.append(t)
        at = e
    out.append(text[at:])
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("hkls")
    ap.add_argument("--kernel", default="saxpy", help="bench/kernels/KERNEL.cu (kernel of the same name)")
    ap.add_argument("--budget", type=int, default=8)
    ap.add_argument("--minutes", type=float, default=5)
    ap.add_argument("--wait", type=float, default=1800, help="seconds to wait for the episode")
    ap.add_argument("--out", default=os.environ.get("OUT") or ".")
    ap.add_argument("--simulate", action="store_true",
                    help="check this script itself where there is no GPU (simulated GPU; not a GPU result)")
    a = ap.parse_args()
    if not a.simulate and not has_gpu():
        print("skipped: no GPU (no /dev/nvidia0, nvidia-smi -L fails)")
        return SKIPPED
    src = os.path.join(REPO, "bench", "kernels", a.kernel + ".cu")
    spec = os.path.join(REPO, "bench", "kernels", a.kernel + ".bench.json")
    if not os.path.exists(src) or not os.path.exists(spec):
        print("FAIL: no %s or %s" % (src, spec), file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="hk-gpu-flow-")
    ws = os.path.join(tmp, "ws")
    os.makedirs(ws)
    f = os.path.join(ws, a.kernel + ".cu")
    shutil.copy(src, f)
    shutil.copy(spec, os.path.join(ws, a.kernel + ".bench.json"))
    shutil.copy(spec, os.path.join(ws, "%s.%s.bench.json" % (a.kernel, a.kernel)))
    record = {"kernel": a.kernel, "simulated": a.simulate, "budget": a.budget, "minutes": a.minutes, "checks": [], "started": time.time()}
    failures = 0

    def check(ok, what):
        nonlocal failures
        record["checks"].append({"ok": bool(ok), "what": what})
        print(("ok   - " if ok else "FAIL - ") + what, flush=True)
        if not ok:
            failures += 1
        return ok

    log = os.path.join(a.out, "gpu_flow_hkls.log")
    c = Client([a.hkls, "--log", log, "--log-level", "info"], ws)
    rc = 0
    try:
        init = c.request("initialize", {
            "processId": os.getpid(), "rootUri": uri_of(ws),
            "workspaceFolders": [{"uri": uri_of(ws), "name": "ws"}],
            "capabilities": {
                "window": {"workDoneProgress": True, "showDocument": {"support": True}},
                "workspace": {"applyEdit": True, "workspaceEdit": {"documentChanges": True},
                              "codeLens": {"refreshSupport": True}},
                "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                                 "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": [""]}},
                                                "disabledSupport": True},
                                 "publishDiagnostics": {"versionSupport": True, "codeDescriptionSupport": True}}},
            "initializationOptions": {"episodes": dict({"db": os.path.join(tmp, "history.db"),
                                                        "budget": a.budget, "minutes": a.minutes},
                                                       **({"simulate": True} if a.simulate else {}))},
        })
        c.notify("initialized", {})
        record["server"] = init.get("serverInfo")
        uri = uri_of(f)
        text = open(f).read()
        version = 1
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda-cpp",
                                                           "version": version, "text": text}})
        body = text[text.index("__global__"):]
        pos = position_of(text, body[body.index("{") + 1:].strip().split()[0])

        def actions():
            return c.request("textDocument/codeAction", {"textDocument": {"uri": uri},
                                                         "range": {"start": pos, "end": pos},
                                                         "context": {"diagnostics": []}})
        opt = [x for x in actions() if x.get("title") == "Optimize for NVIDIA"]
        if not check(len(opt) == 1, "code action Optimize for NVIDIA"):
            raise Fail("nothing to run")
        t0 = time.time()
        started = c.request("workspace/executeCommand", opt[0]["command"])
        check(time.time() - t0 < 3, "optimize answered in %.2f s" % (time.time() - t0))
        ep, token = started["episode"], started["token"]
        record["episode"] = ep

        def progress():
            return [p["value"] for _, m, p in c.notes if m == "$/progress" and p["token"] == token]
        c.pump_until(lambda: any(v.get("kind") == "end" for v in progress()), a.wait, "the end of the episode")
        record["wall_s"] = round(time.time() - t0, 1)
        created = [p for _, m, p in c.server_requests if m == "window/workDoneProgress/create"]
        check(any(p["token"] == token for p in created), "progress token created by the server")
        prog = progress()
        pcts = [v["percentage"] for v in prog if v.get("kind") == "report" and "percentage" in v]
        check(len(pcts) >= 2 and all(b >= a_ for a_, b in zip(pcts, pcts[1:])) and pcts[-1] > pcts[0],
              "percentages rise (%s)" % " ".join(str(p) for p in pcts))
        record["progress"] = [{"t": round(t - t0, 2), **p["value"]} for t, m, p in c.notes
                              if m == "$/progress" and p["token"] == token]
        fin = [p for _, m, p in c.notes if m == "hyperkernel/episodeChanged" and p.get("episode") == ep
               and p.get("status") in ("completed", "stopped", "failed")]
        record["final"] = fin[-1] if fin else None
        if not check(fin and fin[-1]["status"] == "completed", "episode completed: %s" % json.dumps(fin[-1] if fin else None)):
            shown = [p["message"] for _, m, p in c.notes if m == "window/showMessage"]
            record["messages"] = shown
            raise Fail("the episode did not complete: %s" % shown)

        def info_diag():
            for _, m, p in reversed(c.notes):
                if m == "textDocument/publishDiagnostics" and p["uri"] == uri:
                    return [d for d in p["diagnostics"] if d.get("severity") == 3 and d.get("source") == "hyperkernel"]
            return None
        diag = c.pump_until(info_diag, 30, "the Information diagnostic")[0]
        record["diagnostic"] = diag["message"]
        check("faster version available" in diag["message"], "diagnostic: " + diag["message"])
        hover = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position_of(text, a.kernel + "(")})
        hv = hover["contents"]["value"] if isinstance(hover.get("contents"), dict) else str(hover.get("contents"))
        record["hover"] = hv
        check("speedup" in hv and "bandwidth" in hv, "hover shows the version table")
        record["history"] = c.request("hyperkernel/history", {"uri": uri, "kernel": a.kernel})
        record["episodes"] = c.request("hyperkernel/episodes", {"kernel": a.kernel})
        rep = c.request("hyperkernel/report", {"episode": ep})
        record["report"] = rep
        for k in ("html", "md", "json"):
            if rep.get(k) and os.path.exists(rep[k]):
                shutil.copy(rep[k], os.path.join(a.out, "gpu_flow_report." + k))
        apply = [x for x in actions() if x.get("title", "").startswith("Apply v") and not x.get("disabled")]
        if not check(apply and apply[-1].get("edit"), "an enabled Apply action carrying its edit"):
            raise Fail("nothing to apply")
        act = apply[-1]
        record["applied_action"] = act["title"]
        edits = []
        for dc in act["edit"].get("documentChanges", []):
            if dc["textDocument"]["uri"] == uri:
                check(dc["textDocument"].get("version") == version, "versioned edit for version %d" % version)
                edits += dc["edits"]
        new = apply_edits(text, edits)
        check(new != text, "the version differs from the original")
        version += 1
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                            "contentChanges": [{"text": new}]})
        ok = c.request("workspace/executeCommand", act["command"])
        check(ok.get("ok") is True, "hyperkernel.applied: %s" % json.dumps(ok))
        record["applied_text"] = new
        with open(os.path.join(a.out, "gpu_flow_applied_" + a.kernel + ".cu"), "w") as fh:
            fh.write(new)
    except Fail as e:
        print("ERROR - %s" % e, file=sys.stderr)
        rc = 2
    finally:
        c.stop()
        record["failures"] = failures
        with open(os.path.join(a.out, "gpu_flow.json"), "w") as fh:
            json.dump(record, fh, indent=2)
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d checks, %d failed; record: %s" % (len(record["checks"]), failures,
                                                os.path.join(a.out, "gpu_flow.json")))
    return rc or (1 if failures else 0)


if __name__ == "__main__":
    sys.exit(main())
