#!/usr/bin/env python3
"""Protocol test of Optimize on a kernel that has no bench spec (issue 14), on the simulated
GPU, driving the real hkls over stdio as an editor would:
- saxpy.cu alone: "Optimize for NVIDIA" starts the worker, which infers the spec and saves it
  next to the kernel; the progress and the log say what was inferred, the episode
  completes, and the kernel's hover lists the guesses;
- the same with an editor that accepts the progress token late, after the worker's stages
  began: the progress's begin still says what was inferred;
- const_offsets.cu (an integer __constant__ table of offsets, which random values would
  make read out of bounds): the inference has doubts,
  the command's error gives the reasons, the draft spec opens (window/showDocument), and
  saving it (didSave) runs Optimize again with the draft, without a request.

usage: nospec.py HKLS     exit 0 pass, 1 fail, 77 skipped (no nvcc / cc)
Standard library only. HK_PROTOCOL_LOG=/tmp/x.log keeps the server's debug log."""
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from episodes import CAPS, SRC, Client, Fail, by_title, check, code_actions, pos_of  # noqa: E402


def since(c, start, pred, timeout, what):
    """The first message from c.log[start:] on (or still to come) that pred accepts."""
    for _, m in c.log[start:]:
        if pred(m):
            return m
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        m = c.next_message(end - time.monotonic())
        if m is not None and pred(m):
            return m
    raise Fail("timed out (%ss) waiting for %s" % (timeout, what))


def is_end(m, uri):
    return (m.get("method") == "hyperkernel/episodeChanged" and m["params"].get("uri") == uri
            and m["params"]["status"] in ("completed", "stopped", "failed"))


def hover_text(c, uri, at):
    h = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
    return h["contents"]["value"] if h else ""


def inferred_then_run(c, tmp):
    path = os.path.join(tmp, "saxpy.cu")
    spec_path = os.path.join(tmp, "saxpy.saxpy.bench.json")
    text = open(path).read()
    uri = c.open(path, text)
    at = pos_of(text, "saxpy(int")
    acts = code_actions(c, uri, at)
    opt = by_title(acts, "Optimize for NVIDIA")
    check(opt and by_title(acts, "Create benchmark spec"),
          "no spec: optimize and create-spec offered: %s" % [a["title"] for a in acts])
    check(not os.path.exists(spec_path), "no spec before the click")
    cmd = opt[0]["command"]
    r = c.request("workspace/executeCommand", {"command": cmd["command"],
                                               "arguments": cmd["arguments"]}, 120)
    episode, token = r["episode"], r["token"]
    check(isinstance(episode, int), "optimize answer %s" % r)
    end = c.wait_for(lambda m: is_end(m, uri) and m["params"]["episode"] == episode, 600,
                     "the end of episode %d" % episode)
    check(end["params"]["status"] == "completed", "episode ended %s" % end["params"])
    spec = json.load(open(spec_path))
    check(spec.get("kernel") == "saxpy" and spec.get("source") == "saxpy.cu"
          and spec.get("inferred"), "the saved spec: %s" % spec)
    # the progress said what was inferred, before the episode's own stages
    reports = [m["params"]["value"].get("message", "") for _, m in c.log
               if m.get("method") == "$/progress" and m["params"]["token"] == token
               and m["params"]["value"]["kind"] in ("begin", "report")]
    said = [x for x in reports if "spec inferred and saved to " + spec_path in x]
    check(said, "progress reports: %s" % reports)
    check(reports.index(said[0]) < len(reports) - 1, "the inference comes before the stages")
    c.wait_for(lambda m: m.get("method") == "window/logMessage"
               and "Optimize saxpy: no spec, inferred " + spec_path in m["params"]["message"],
               5, "the log message")
    # the hover lists the guesses (read with the results, off the loop: wait for them)
    deadline = time.monotonic() + 30
    hv = hover_text(c, uri, at)
    while "Spec inferred" not in hv and time.monotonic() < deadline:
        c.drain(0.3)
        hv = hover_text(c, uri, at)
    check("Spec inferred" in hv and "(saxpy.saxpy.bench.json)" in hv
          and "- grid from the launch site at saxpy.cu:" in hv
          and "Optimization history" in hv, "hover:\n" + hv)
    # in Chinese the same notes are said in Chinese; the saved spec stays English (issue 14)
    c.notify("workspace/didChangeConfiguration",
             {"settings": {"compile": {"enabled": False}, "language": "zh-CN",
                           "episodes": {"simulate": True, "budget": 1, "check": "quick",
                                        "db": os.path.join(tmp, "history.db")}}})
    deadline = time.monotonic() + 30
    zh = hover_text(c, uri, at)
    while "已推断 bench spec" not in zh and time.monotonic() < deadline:
        c.drain(0.3)
        zh = hover_text(c, uri, at)
    check("已推断 bench spec" in zh and "- 网格来自 saxpy.cu:" in zh
          and "from the launch site" not in zh, "hover in Chinese:\n" + zh)
    check(json.load(open(spec_path)).get("inferred") == spec["inferred"], "the saved notes changed")
    c.notify("workspace/didChangeConfiguration",
             {"settings": {"compile": {"enabled": False}, "language": "en",
                           "episodes": {"simulate": True, "budget": 1, "check": "quick",
                                        "db": os.path.join(tmp, "history.db")}}})
    check("Spec inferred" in hover_text(c, uri, at), "the hover is English again")
    # a second click finds the spec: nothing is inferred again
    mtime = os.stat(spec_path).st_mtime_ns
    n = len(c.log)
    r = c.request("workspace/executeCommand", {"command": cmd["command"],
                                               "arguments": cmd["arguments"]}, 120)
    since(c, n, lambda m: is_end(m, uri) and m["params"]["episode"] == r["episode"], 600,
          "the second episode's end")
    check(not [m for _, m in c.log[n:] if m.get("method") == "$/progress"
               and "spec inferred" in m["params"]["value"].get("message", "")],
          "the second run inferred nothing")
    check(os.stat(spec_path).st_mtime_ns == mtime, "the spec is kept as it was")
    print("no spec: inferred %s, episode %d completed; hover lists %d guesses"
          % (os.path.basename(spec_path), episode, len(spec["inferred"])))


def late_token(c, tmp):
    """An editor that accepts the progress token only after the worker has inferred the spec
    and moved on to its stages: the progress still says what was inferred (its begin), then
    where the episode is."""
    path = os.path.join(tmp, "late", "saxpy.cu")
    spec_path = os.path.join(tmp, "late", "saxpy.saxpy.bench.json")
    text = open(path).read()
    uri = c.open(path, text)
    opt = by_title(code_actions(c, uri, pos_of(text, "saxpy(int")), "Optimize for NVIDIA")
    c.hold_progress = True
    n = len(c.log)
    cmd = opt[0]["command"]
    r = c.request("workspace/executeCommand", {"command": cmd["command"],
                                               "arguments": cmd["arguments"]}, 120)
    since(c, n, lambda m: m.get("method") == "window/logMessage"
          and "no spec, inferred " + spec_path in m["params"]["message"], 120, "the inference")
    m0 = len(c.log)
    since(c, m0, lambda m: m.get("method") == "hyperkernel/episodeChanged"
          and m["params"].get("uri") == uri and m["params"]["status"] == "running", 120,
          "a stage after the inference")
    c.release_progress()
    begin = since(c, m0, lambda m: m.get("method") == "$/progress"
                  and m["params"]["token"] == r["token"]
                  and m["params"]["value"]["kind"] == "begin", 30, "the progress begin")
    check("spec inferred and saved to " + spec_path in begin["params"]["value"]["message"],
          "begin after a late token: %s" % begin["params"]["value"])
    since(c, n, lambda m: is_end(m, uri) and m["params"]["episode"] == r["episode"], 600,
          "the end of the late-token episode")
    print("no spec, late token: the begin says what was inferred")


def draft_then_save(c, tmp):
    path = os.path.join(tmp, "const_offsets.cu")
    draft = os.path.join(tmp, "const_offsets.gather_taps.bench.json")
    text = open(path).read()
    uri = c.open(path, text)
    n = len(c.log)
    err = c.request_error("workspace/executeCommand", {
        "command": "hyperkernel.optimize",
        "arguments": [{"uri": uri, "kernel": "gather_taps", "target": "nvidia"}]}, 120)
    check(err and "did not start" in err and "integer __constant__ taps" in err
          and "edit and save " + draft in err, "the refusal: %s" % err)
    show = since(c, n, lambda m: m.get("method") == "window/showDocument", 10, "the draft shown")
    check(show["params"]["uri"] == "file://" + draft and show["params"].get("takeFocus"),
          "showDocument %s" % show["params"])
    check(os.path.exists(draft), "the draft is saved")
    msg = since(c, n, lambda m: m.get("method") == "window/showMessage"
                and m["params"]["type"] == 1, 10, "the error message")
    check("needs checking" in msg["params"]["message"], "message %s" % msg["params"])
    check(not [e for e in c.request("hyperkernel/episodes", {}) if e["kernel"] == "gather_taps"],
          "nothing ran on the draft")
    # saving another file starts nothing
    n = len(c.log)
    c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    c.drain(1.0)
    check(not [m for _, m in c.log[n:] if m.get("method") == "window/workDoneProgress/create"],
          "saving the kernel starts nothing")
    # the user opens the draft (the editor did), checks it and saves it: Optimize runs again
    spec = json.load(open(draft))
    check(spec.get("inferred"), "the draft says what was guessed: %s" % spec)
    duri = c.open(draft, json.dumps(spec, indent=2) + "\n")
    c.notify("textDocument/didSave", {"textDocument": {"uri": duri}})
    begin = since(c, n, lambda m: m.get("method") == "$/progress"
                  and m["params"]["value"]["kind"] == "begin", 30, "a new optimization")
    check(begin["params"]["value"]["title"] == "Optimize gather_taps (nvidia)", "begin %s" % begin)
    end = since(c, n, lambda m: is_end(m, uri), 600, "the end of the optimization on the draft")
    eps = [e for e in c.request("hyperkernel/episodes", {}) if e["kernel"] == "gather_taps"]
    check(len(eps) == 1 and eps[0]["id"] == end["params"]["episode"], "episodes %s" % eps)
    # once only: saving the draft again starts nothing more
    n = len(c.log)
    c.notify("textDocument/didSave", {"textDocument": {"uri": duri}})
    c.drain(1.0)
    check(not [m for _, m in c.log[n:] if m.get("method") == "window/workDoneProgress/create"],
          "a second save starts nothing")
    print("draft: refused with the reasons, shown, saved -> episode %d %s"
          % (end["params"]["episode"], end["params"]["status"]))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    hkls = os.path.abspath(sys.argv[1])
    if not shutil.which("nvcc") and not os.path.exists("/usr/local/cuda/bin/nvcc"):
        print("skipped: no nvcc")
        return 77
    if not shutil.which("cc"):
        print("skipped: no cc for the GPU simulator")
        return 77
    tmp = tempfile.mkdtemp(prefix="hk-nospec-")
    env = dict(os.environ, TMPDIR=tmp, HOME=tmp, XDG_DATA_HOME=os.path.join(tmp, "xdg"))
    env.pop("HK_NO_GPU", None)
    shutil.copy(os.path.join(SRC, "bench", "kernels", "saxpy.cu"), tmp)
    shutil.copy(os.path.join(SRC, "tests", "data", "infer", "const_offsets.cu"), tmp)
    os.mkdir(os.path.join(tmp, "late"))
    shutil.copy(os.path.join(SRC, "bench", "kernels", "saxpy.cu"), os.path.join(tmp, "late"))
    opts = {"compile": {"enabled": False},
            "episodes": {"simulate": True, "db": os.path.join(tmp, "history.db"), "budget": 1,
                         "check": "quick"}}
    c = Client(hkls, env, CAPS, opts, tmp, "nospec")
    try:
        inferred_then_run(c, tmp)
        late_token(c, tmp)
        draft_then_save(c, tmp)
        check(c.close() == 0, "exit code")
    except Fail as e:
        c.close()
        print("FAIL: %s (files kept in %s)" % (e, tmp))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
