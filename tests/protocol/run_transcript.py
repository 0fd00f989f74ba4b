#!/usr/bin/env python3
"""Drives the real hkls binary over stdio with a transcript file and checks its replies.

Usage: run_transcript.py HKLS TRANSCRIPT

Transcript lines (see tests/protocol/README.md):
  # comment
  -> BODY              send BODY (the rest of the line, verbatim) with a Content-Length header
  => "PY-STRING"       send raw bytes (a JSON string literal: \\r\\n escapes allowed)
  <- JSON              wait for a message matching JSON (subset match, see below)
  silence MS           no response (a message with an id) arrives within MS milliseconds
  sleep MS             keep reading for MS milliseconds
  never JSON           no message received so far (waited for or not) matches JSON
  no-process TEXT      within 2 s, no process on the machine has TEXT in its command line
  timeout MS           wait at most MS for each following <- (default 5000)
  close                close the server's stdin
  exit CODE            the server must exit with CODE within 3 s
  require-tool NAME    skip the test (exit 77) when NAME is not on PATH or /usr/local/cuda/bin

In BODY and JSON, $ROOT is the absolute path of tests/data/protocol and
$TEXT(name) is the content of that file as a JSON string literal.

Matching: an expected object matches when each of its keys matches in the actual
object (other keys are ignored); arrays must have the same length and match element
by element; "$any" matches anything, "$absent" requires the key to be missing,
"$contains:S" matches a string containing S. An expected message with "id" matches a
response with that id; one with "method" matches a notification with that method.
Notifications that are not waited for are skipped. At the end, every response the
server sent must have been waited for: an extra response fails the test.
"""
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "data", "protocol"))


class Fail(Exception):
    pass


class Server:
    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=None, bufsize=0)
        self.buf = b""
        self.queue = []      # parsed messages not consumed yet
        self.seen = []       # every message received
        self.eof = False

    def send_raw(self, data):
        try:
            self.p.stdin.write(data)
            self.p.stdin.flush()
        except BrokenPipeError:
            raise Fail("the server closed its input while we were writing")

    def send_body(self, body):
        b = body.encode("utf-8", "surrogatepass")
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(b) + b)

    def _parse(self):
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            headers = self.buf[:end].decode("ascii", "replace").split("\r\n")
            length = None
            for h in headers:
                k, _, v = h.partition(":")
                if k.strip().lower() == "content-length":
                    length = int(v.strip())
            if length is None:
                raise Fail("server sent a header block without Content-Length: %r" % headers)
            if len(self.buf) < end + 4 + length:
                return
            body = self.buf[end + 4:end + 4 + length]
            self.buf = self.buf[end + 4 + length:]
            try:
                self.queue.append(json.loads(body))
                self.seen.append(self.queue[-1])
            except ValueError as e:
                raise Fail("server sent invalid JSON (%s): %r" % (e, body[:200]))

    def pump(self, deadline):
        """Reads what arrives until deadline; returns False at EOF."""
        fd = self.p.stdout.fileno()
        while not self.eof:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            r, _, _ = select.select([fd], [], [], left)
            if not r:
                return True
            chunk = os.read(fd, 65536)
            if not chunk:
                self.eof = True
                return False
            self.buf += chunk
            self._parse()
            return True
        return False


def match(exp, act, path="$"):
    if isinstance(exp, str) and exp == "$any":
        return None
    if isinstance(exp, str) and exp.startswith("$contains:"):
        if isinstance(act, str) and exp[len("$contains:"):] in act:
            return None
        return "%s: %r does not contain %r" % (path, act, exp[len("$contains:"):])
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            return "%s: expected an object, got %r" % (path, act)
        for k, v in exp.items():
            if v == "$absent":
                if k in act:
                    return "%s.%s: expected absent, got %r" % (path, k, act[k])
                continue
            if k not in act:
                return "%s.%s: missing" % (path, k)
            m = match(v, act[k], path + "." + k)
            if m:
                return m
        return None
    if isinstance(exp, list):
        if not isinstance(act, list) or len(act) != len(exp):
            return "%s: expected a list of %d, got %s" % (
                path, len(exp), json.dumps(act)[:300])
        for i, (e, a) in enumerate(zip(exp, act)):
            m = match(e, a, "%s[%d]" % (path, i))
            if m:
                return m
        return None
    if type(exp) != type(act) or exp != act:
        return "%s: expected %r, got %r" % (path, exp, act)
    return None


def is_response(m):
    return "id" in m and "method" not in m


def substitute(text):
    def text_of(mo):
        with open(os.path.join(DATA, mo.group(1)), encoding="utf-8") as f:
            return json.dumps(f.read(), ensure_ascii=False)
    text = re.sub(r"\$TEXT\(([^)]+)\)", text_of, text)
    return text.replace("$ROOT", DATA)


def read_cmdline(pid):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            return f.read()
    except OSError:
        return b""


def find_tool(name):
    return shutil.which(name) or (os.path.exists("/usr/local/cuda/bin/" + name))


def run(hkls, transcript):
    with open(transcript, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for ln in lines:
        if ln.startswith("require-tool "):
            if not find_tool(ln.split()[1]):
                print("skipped: %s not found" % ln.split()[1])
                return 77
    argv = [hkls]
    log = os.environ.get("HK_PROTOCOL_LOG")
    if log:
        argv += ["--log", log, "--log-level", "debug"]
    srv = Server(argv)
    wait_ms = 5000
    try:
        for no, raw in enumerate(lines, 1):
            ln = raw.strip()
            if not ln or ln.startswith("#") or ln.startswith("require-tool "):
                continue
            where = "%s:%d" % (os.path.basename(transcript), no)
            if ln.startswith("-> "):
                srv.send_body(substitute(ln[3:]))
            elif ln.startswith("=> "):
                srv.send_raw(json.loads(ln[3:]).encode("utf-8", "surrogatepass"))
            elif ln.startswith("<- "):
                exp = json.loads(substitute(ln[3:]))
                deadline = time.monotonic() + wait_ms / 1000.0
                found = None
                last_err = "nothing received"
                while found is None:
                    for i, m in enumerate(srv.queue):
                        if "id" in exp and "method" not in exp:
                            if not is_response(m) or m.get("id") != exp["id"]:
                                continue
                        elif "method" in exp:
                            if m.get("method") != exp["method"]:
                                continue
                        err = match(exp, m)
                        if err is None:
                            found = i
                            break
                        last_err = err
                        if is_response(m):
                            break  # the response for this id is wrong: no point waiting
                    if found is not None:
                        break
                    if "id" in exp and any(is_response(m) and m.get("id") == exp["id"]
                                           for m in srv.queue):
                        raise Fail("%s: response does not match: %s\n  got: %s" % (
                            where, last_err, json.dumps(
                                [m for m in srv.queue if m.get("id") == exp["id"]][0])[:2000]))
                    if time.monotonic() >= deadline or not srv.pump(deadline):
                        raise Fail("%s: no message matching %s within %d ms (%s); queue: %s" % (
                            where, ln[3:][:300], wait_ms, last_err,
                            json.dumps(srv.queue)[:1500]))
                srv.queue.pop(found)
            elif ln.startswith("silence "):
                deadline = time.monotonic() + int(ln.split()[1]) / 1000.0
                while time.monotonic() < deadline and srv.pump(deadline):
                    pass
                extra = [m for m in srv.queue if is_response(m)]
                if extra:
                    raise Fail("%s: unexpected response(s): %s" % (where, json.dumps(extra)[:1000]))
            elif ln.startswith("sleep "):
                deadline = time.monotonic() + int(ln.split()[1]) / 1000.0
                while time.monotonic() < deadline and srv.pump(deadline):
                    pass
            elif ln.startswith("never "):
                exp = json.loads(substitute(ln[6:]))
                for m in srv.seen:
                    if match(exp, m) is None:
                        raise Fail("%s: received a message that must not come: %s" % (
                            where, json.dumps(m)[:1000]))
            elif ln.startswith("no-process "):
                text = ln.split(None, 1)[1].encode()
                t0 = time.monotonic()
                while True:
                    left = [pid for pid in os.listdir("/proc") if pid.isdigit()
                            and text in read_cmdline(pid)]
                    if not left:
                        break
                    if time.monotonic() - t0 > 2.0:
                        raise Fail("%s: processes still running with %r: %s" % (
                            where, text, left))
                    time.sleep(0.05)
            elif ln.startswith("timeout "):
                wait_ms = int(ln.split()[1])
            elif ln == "close":
                srv.p.stdin.close()
            elif ln.startswith("exit "):
                code = int(ln.split()[1])
                t0 = time.monotonic()
                while srv.pump(time.monotonic() + 3.0):
                    if time.monotonic() - t0 > 3.0:
                        break
                try:
                    rc = srv.p.wait(timeout=max(0.1, 3.0 - (time.monotonic() - t0)))
                except subprocess.TimeoutExpired:
                    raise Fail("%s: the server did not exit within 3 s" % where)
                if rc != code:
                    raise Fail("%s: exit code %d, expected %d" % (where, rc, code))
            else:
                raise Fail("%s: unknown transcript line: %s" % (where, ln))
        extra = [m for m in srv.queue if is_response(m)]
        if extra:
            raise Fail("unexpected response(s) at the end: %s" % json.dumps(extra)[:1000])
        if srv.p.poll() is None:
            raise Fail("the transcript ended but the server is still running (end with exit)")
    except Fail as e:
        print("FAIL " + str(e))
        if srv.p.poll() is None:
            srv.p.kill()
            srv.p.wait()
        return 1
    print("ok %s" % os.path.basename(transcript))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(run(sys.argv[1], sys.argv[2]))
