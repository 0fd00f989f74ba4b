#!/usr/bin/env python3
"""Protocol test of workspace trust (issue 12) against the real hkls over stdio.

A folder's .hyperkernel.json names a "compiler" (compile.nvcc) and a host compiler flag
(-ccbin) that are scripts creating a marker file when run. Opening a .cu file of that
folder, untrusted, must not run them: the marker never appears, and the server names the
ignored keys (window/showMessage, and Warning diagnostics on .hyperkernel.json). After
workspace/executeCommand hyperkernel.trustFolder the trust is in
$XDG_CONFIG_HOME/hyperkernel/trusted.json and the compile is redone with the folder's
compiler (the marker appears). A new server started with VS Code's
initializationOptions {"isTrusted": true} uses it at once; `hkls trust --list/--remove`
see the same list. Optimize in the untrusted folder with a bench spec that passes
compiler flags (-ccbin script) is refused before anything runs.

nvcc runs its steps through a shell and leaves backquotes in arguments alone, so the
untrusted folder also tries `touch MARKER` in an include path of .hyperkernel.json, in -I
and -D flags of compile_commands.json, and in the name of a file and of its folder: with
a real nvcc on the machine none of those markers may appear either.

usage: trust.py HKLS      exit 0 pass, 1 fail. Standard library only.
HK_PROTOCOL_LOG=/tmp/x.log keeps the servers' debug logs."""
import json
import os
import urllib.parse
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


class Client:
    def __init__(self, hkls, env, root, init_opts, name, locale=None):
        args = [hkls]
        log = os.environ.get("HK_PROTOCOL_LOG")
        if log:
            args += ["--log", log + "." + name, "--log-level", "debug"]
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
        self.q = queue.Queue()
        self.seen = []
        self.next_id = 1
        threading.Thread(target=self._reader, daemon=True).start()
        params = {"processId": os.getpid(), "rootUri": "file://" + root,
                  "capabilities": {"textDocument": {"publishDiagnostics": {}}},
                  "initializationOptions": init_opts}
        if locale is not None:  # the client's UI language (LSP 3.16)
            params["locale"] = locale
        self.request("initialize", params)
        self.notify("initialized", {})

    def _reader(self):
        f = self.p.stdout
        while True:
            n = None
            while True:
                line = f.readline()
                if not line:
                    self.q.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    n = int(line.split(b":")[1])
            self.q.put(json.loads(f.read(n)))

    def send(self, msg):
        msg["jsonrpc"] = "2.0"
        b = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
        self.p.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def next_message(self, timeout):
        try:
            m = self.q.get(timeout=timeout)
        except queue.Empty:
            return None
        if m is None:
            raise Fail("the server closed its output")
        self.seen.append(m)
        if "method" in m and "id" in m:  # answer whatever the server asks
            self.send({"id": m["id"], "result": None})
        return m

    def request(self, method, params, timeout=30):
        i = self.next_id
        self.next_id += 1
        self.send({"id": i, "method": method, "params": params})
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = self.next_message(end - time.monotonic())
            if m is not None and m.get("id") == i and "method" not in m:
                return m
        raise Fail("no reply to %s within %ss" % (method, timeout))

    def wait(self, pred, timeout, what):
        for m in self.seen:
            if pred(m):
                return m
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = self.next_message(end - time.monotonic())
            if m is not None and pred(m):
                return m
        raise Fail("timed out waiting for " + what)

    def close(self):
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
        except (Fail, BrokenPipeError):
            pass
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.p.kill()


def is_method(m, method):
    return m.get("method") == method


def diags_for(uri):
    return lambda m: is_method(m, "textDocument/publishDiagnostics") and m["params"]["uri"] == uri


def main():
    hkls = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="hk_trust_proto_")
    try:
        return run(hkls, os.path.realpath(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(hkls, tmp):
    ws = os.path.join(tmp, "ws")
    xdg = os.path.join(tmp, "xdg")
    os.makedirs(ws)
    os.makedirs(xdg)
    marker = os.path.join(tmp, "marker")
    evil = os.path.join(tmp, "evil.sh")
    with open(evil, "w") as f:
        f.write("#!/bin/sh\necho ran \"$@\" >> %s\nexit 1\n" % marker)
    os.chmod(evil, 0o755)
    with open(os.path.join(ws, ".hyperkernel.json"), "w") as f:
        json.dump({"target": "nvidia:sm_80",
                   "compile": {"nvcc": evil, "flags": ["-ccbin", evil], "debounceMs": 0,
                               "includePaths": ["inc`touch hk_m_inc`"]}},
                  f, indent=2)
    cu = os.path.join(ws, "k.cu")
    text = "__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n"
    # a harness-form bench spec for k whose compiler flags would run the script
    with open(os.path.join(ws, "k.k.bench.json"), "w") as f:
        json.dump({"kernel": "k", "source": "k.cu", "compile_flags": ["--compiler-bindir=" + evil],
                   "sizes": [{"n": 256}, {"n": 1000}],
                   "args": [{"name": "x", "kind": "output", "dtype": "float", "count": "n"}],
                   "launch": {"grid": "ceil_div(n, block_x)", "block": 256},
                   "seeds": [1, 2, 3, 4, 5],
                   "distributions": ["uniform(-1,1)", "normal(0,1)"]}, f)
    with open(cu, "w") as f:
        f.write(text)
    cu_uri = "file://" + cu
    with open(os.path.join(ws, "compile_commands.json"), "w") as f:
        json.dump([{"directory": ws, "file": cu, "arguments": [
            "nvcc", "-I", "x`touch hk_m_ccdb_i`", "-DA=`touch hk_m_ccdb_d`", "-c", cu]}], f)
    odd_dir = os.path.join(ws, "d`touch hk_m_dir`")
    os.makedirs(odd_dir)
    odd = os.path.join(odd_dir, "k`touch hk_m_file`.cu")
    with open(odd, "w") as f:
        f.write(text)
    odd_uri = "file://" + urllib.parse.quote(odd)
    shell_markers = [os.path.join(ws, m) for m in
                     ("hk_m_inc", "hk_m_ccdb_i", "hk_m_ccdb_d", "hk_m_dir", "hk_m_file")]
    cfg_uri = "file://" + os.path.join(ws, ".hyperkernel.json")
    env = dict(os.environ, XDG_CONFIG_HOME=xdg)
    trusted_json = os.path.join(xdg, "hyperkernel", "trusted.json")

    # 1. untrusted: the keys are ignored and named; the script never runs
    db = os.path.join(tmp, "history.db")
    c = Client(hkls, env, ws, {"episodes": {"db": db}}, "untrusted")
    try:
        msg = c.wait(lambda m: is_method(m, "window/showMessage") and
                     "not a trusted folder" in m["params"]["message"], 10, "the untrusted warning")
        text_msg = msg["params"]["message"]
        check("compile.nvcc" in text_msg and "compile.flags" in text_msg and
              "compile.includePaths" in text_msg, "the warning names the ignored keys: " + text_msg)
        check("hkls trust " + ws in text_msg, "the warning says how to trust: " + text_msg)
        check("compile.debounceMs" not in text_msg and "target" not in text_msg.split("ignored:")[1].split("(")[0],
              "harmless keys are not named: " + text_msg)
        d = c.wait(diags_for(cfg_uri), 10, "diagnostics on .hyperkernel.json")["params"]["diagnostics"]
        keys = sorted(x["message"].split(" ignored")[0] for x in d)
        check(keys == ["compile.flags", "compile.includePaths", "compile.nvcc"],
              "one diagnostic per ignored key: %r" % keys)
        check(all(x["severity"] == 2 and x["code"] == "untrusted-setting" for x in d),
              "Warning diagnostics with code untrusted-setting: %r" % d)
        c.notify("textDocument/didOpen", {"textDocument": {"uri": cu_uri, "languageId": "cuda",
                                                           "version": 1, "text": text}})
        c.notify("textDocument/didSave", {"textDocument": {"uri": cu_uri}})
        # the compile ran with the default compiler (diagnostics for k.cu) or none was
        # found (a message); either way not with the folder's script
        # the end of the compile: its diagnostics (a resource Hint at least) or no compiler
        c.wait(lambda m: (diags_for(cu_uri)(m) and m["params"]["diagnostics"]) or
               (is_method(m, "window/showMessage") and "compiler" in m["params"]["message"].lower()),
               120, "the untrusted compile to end")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": odd_uri, "languageId": "cuda",
                                                           "version": 1, "text": text}})
        c.wait(lambda m: (diags_for(odd_uri)(m) and m["params"]["diagnostics"]) or
               any(is_method(x, "window/showMessage") and "compiler" in x["params"]["message"].lower()
                   for x in c.seen),
               120, "the compile of the oddly named file to end")
        time.sleep(0.5)
        check(not os.path.exists(marker), "the folder's compiler ran in an untrusted folder")
        ran = [m for m in shell_markers if os.path.exists(m)]
        check(not ran, "the compiler driver's shell ran commands of the folder: %r" % ran)
        check(not os.path.exists(trusted_json), "nothing was written to the trust list yet")
        # optimize with the folder's spec: its compiler flags may not run either
        r = c.request("workspace/executeCommand", {"command": "hyperkernel.optimize", "arguments": [
            {"uri": cu_uri, "kernel": "k", "target": "nvidia"}]}, timeout=120)
        err = r.get("error", {}).get("message", "")
        check("error" in r and "compile_flags" in err and "not trusted" in err,
              "optimize with an untrusted spec's compiler flags is refused: %r" % r)
        time.sleep(0.5)
        check(not os.path.exists(marker), "the spec's -ccbin ran in an untrusted folder")

        # 2. trust it: persisted, settings re-read, the compile redone with the script
        r = c.request("workspace/executeCommand", {"command": "hyperkernel.trustFolder",
                                                   "arguments": []})
        check("result" in r, "trustFolder answered: %r" % r)
        res = r["result"]
        check(res["folder"] == ws and res["workspaceTrusted"] is True and res["changed"] is True,
              "trustFolder result: %r" % res)
        check(res["file"] == trusted_json, "the list is in XDG_CONFIG_HOME: %r" % res["file"])
        with open(trusted_json) as f:
            check(json.load(f) == [ws], "trusted.json lists the folder")
        n0 = len(c.seen)
        c.wait(lambda m: diags_for(cfg_uri)(m) and m["params"]["diagnostics"] == [], 10,
               "the warnings on .hyperkernel.json cleared")
        end = time.monotonic() + 30
        while not os.path.exists(marker) and time.monotonic() < end:
            c.next_message(0.2)
        check(os.path.exists(marker), "after trust the folder's compiler is used")
    finally:
        c.close()

    # 3. a list written by the server is what `hkls trust --list` shows; --remove drops it
    out = subprocess.run([hkls, "trust", "--list"], env=env, capture_output=True, text=True)
    check(out.returncode == 0 and out.stdout.split() == [ws], "hkls trust --list: %r" % out.stdout)
    out = subprocess.run([hkls, "trust", "--remove", ws], env=env, capture_output=True, text=True)
    check(out.returncode == 0 and "no longer trusted" in out.stdout, "hkls trust --remove: %r" % out.stdout)
    with open(trusted_json) as f:
        check(json.load(f) == [], "removed from trusted.json")

    # 4. VS Code: initializationOptions {"isTrusted": true} applies the folder's keys
    os.unlink(marker)
    c = Client(hkls, env, ws, {"isTrusted": True}, "vscode")
    try:
        c.notify("textDocument/didOpen", {"textDocument": {"uri": cu_uri, "languageId": "cuda",
                                                           "version": 1, "text": text}})
        end = time.monotonic() + 30
        while not os.path.exists(marker) and time.monotonic() < end:
            c.next_message(0.2)
        check(os.path.exists(marker), "isTrusted from the client applies compile.nvcc")
        check(not any(is_method(m, "window/showMessage") and "not a trusted folder" in
                      m["params"]["message"] for m in c.seen), "no untrusted warning when trusted")
        check(not os.path.exists(trusted_json) or json.load(open(trusted_json)) == [],
              "the client's trust is not written to the user's list")
    finally:
        c.close()
    print("trust: ok")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL:", e)
        sys.exit(1)
