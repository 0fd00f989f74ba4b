#!/usr/bin/env python3
"""Protocol test of an episode in Chinese (docs/i18n.md), on the simulated GPU: with the
setting "language": "zh-CN" the code action, the $/progress title, the worker's stage and
progress details in its messages, the end message, the
result diagnostic, the hover and the report the episode worker writes are in Chinese,
while the command, the episode's status and hyperkernel/episodes stay as they are; a
burst of the worker's lines (12 refused tunables, tests/data/episode/refusals.cu) is
relayed in Chinese, in order, before the episode's end (they are said on the pool).

usage: i18n_episode.py HKLS     exit 0 pass, 1 fail, 77 skipped (no nvcc / cc)
Standard library only. HK_PROTOCOL_LOG=/tmp/x.log keeps the server's debug log."""
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from episodes import CAPS, SRC, Client, Fail, by_title, check, code_actions, pos_of  # noqa: E402


def run(c, tmp):
    path = os.path.join(tmp, "saxpy.cu")
    text = open(path).read()
    uri = c.open(path, text)
    at = pos_of(text, "saxpy(int")
    acts = code_actions(c, uri, at)
    opt = by_title(acts, "针对 NVIDIA 优化")
    check(opt, "code actions: %s" % [a["title"] for a in acts])
    cmd = opt[0]["command"]
    check(cmd["command"] == "hyperkernel.optimize", "command %s" % cmd)
    r = c.request("workspace/executeCommand", {"command": cmd["command"],
                                               "arguments": cmd["arguments"]}, 120)
    episode, token = r["episode"], r["token"]
    end = c.wait_for(lambda m: m.get("method") == "hyperkernel/episodeChanged"
                     and m["params"].get("episode") == episode
                     and m["params"]["status"] in ("completed", "stopped", "failed"), 600,
                     "the end of episode %d" % episode)
    check(end["params"]["status"] == "completed", "episode ended %s" % end["params"])
    progress = [m["params"]["value"] for _, m in c.log
                if m.get("method") == "$/progress" and m["params"]["token"] == token]
    check(progress and progress[0]["kind"] == "begin"
          and progress[0]["title"].startswith("优化核函数 saxpy ("), "begin %s" % progress[:1])
    check(progress[-1]["kind"] == "end"
          and progress[-1]["message"].startswith("完成：最佳加速比 "), "end %s" % progress[-1:])
    # the details after the stage names come from the worker's events, in its --lang
    msgs = [p.get("message", "") for p in progress if p["kind"] == "report"]
    check(any("原始核函数：构建" in m for m in msgs) and any("候选版本 " in m for m in msgs)
          and any("证据与报告" in m for m in msgs), "worker details: %s" % msgs)
    english = ("the original kernel", "candidate ", "evidence and the report", "toolchain",
               "interleaved", "re-checking")
    check(not [m for m in msgs if any(e in m for e in english)],
          "English worker details: %s" % [m for m in msgs if any(e in m for e in english)])
    # the result diagnostic, once the results are read back
    diag = c.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == uri
                      and any("有更快的版本可用" in d["message"] for d in m["params"]["diagnostics"]),
                      30, "the result diagnostic in Chinese")
    check(all("faster version" not in d["message"] for d in diag["params"]["diagnostics"]),
          "an English diagnostic: %s" % diag["params"]["diagnostics"])
    deadline = time.monotonic() + 30
    hv = ""
    while "优化历史" not in hv and time.monotonic() < deadline:
        h = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": at})
        hv = h["contents"]["value"] if h else ""
        if "优化历史" not in hv:
            c.drain(0.3)
    check("优化历史" in hv and "| 版本 | 耗时 | 加速比 |" in hv, "hover:\n" + hv)
    # the simulated marks inside the history's cells (issue 14)
    check("x（模拟）" in hv and " simulated" not in hv, "hover's cells:\n" + hv)
    # the worker's log lines the editor relays, with the server's own prefix (issue 14)
    logs = [m["params"]["message"] for _, m in c.log if m.get("method") == "window/logMessage"]
    mine = [m for m in logs if m.startswith("优化任务 %d（saxpy）：" % episode)]
    check(any("基线：" in m and "个寄存器，溢出 0 字节" in m for m in mine)
          and any("已提出 1 个候选版本，测量了 1 个" in m for m in mine),
          "relayed worker lines: %s" % mine)
    english = ("registers", "candidates proposed", "search axes", "skills that fit")
    check(not [m for m in logs if m.startswith("episode %d (" % episode)]
          and not [m for m in mine if any(e in m for e in english)],
          "English relayed lines: %s" % logs)
    check(any(m.startswith("优化核函数 saxpy (") for m in logs), "the end line: %s" % logs)
    # the worker wrote its report in the editor's language, not its environment's
    eps = [e for e in c.request("hyperkernel/episodes", {}) if e.get("id") == episode]
    check(eps and eps[0].get("status") == "completed", "episodes %s" % eps)
    html = os.path.join(tmp, "reports", str(episode), "episode-%d.html" % episode)
    page = open(html, encoding="utf-8").read()
    check('<html lang="zh-CN">' in page and "Hyper Kernel 优化报告" in page,
          "the report is not in Chinese: %s" % html)
    print("zh-CN: episode %d completed; progress, diagnostic, hover and report in Chinese"
          % episode)
    refusals(c, tmp)


def refusals(c, tmp):
    """Session 35: the worker's event lines are said on the pool, a batch at a time, and
    handled on the loop in their order. A kernel of ours with 12 tunables the search
    refuses: the worker logs the 12 lines back to back (one pipe read holds several); each
    is relayed said in Chinese, in the worker's order, all before the episode's end."""
    path = os.path.join(tmp, "refusals.cu")
    text = open(path).read()
    lines = text.split("\n")
    # the line each tunable's loop is on (1-based), as the search names it
    want = []
    for k in range(12):
        row = next(i for i, ln in enumerate(lines) if ln.strip() == "for (int k = 0; k < R%d; k++)" % k)
        want.append("R%d 未被搜索：用于循环的边界（第 %d 行）" % (k, row + 1))
    uri = c.open(path, text)
    first = len(c.log)
    r = c.request("workspace/executeCommand", {
        "command": "hyperkernel.optimize",
        "arguments": [{"uri": uri, "kernel": "refusals", "target": "nvidia"}]}, 120)
    episode = r["episode"]
    c.wait_for(lambda m: m.get("method") == "hyperkernel/episodeChanged"
               and m["params"].get("episode") == episode
               and m["params"]["status"] in ("completed", "stopped", "failed"), 600,
               "the end of episode %d" % episode)
    seq = [m for _, m in c.log[first:]]
    logs = [(i, m["params"]["message"]) for i, m in enumerate(seq)
            if m.get("method") == "window/logMessage"]
    prefix = "优化任务 %d（refusals）：" % episode
    said = [(i, t[len(prefix):]) for i, t in logs if t.startswith(prefix) and "未被搜索" in t]
    check([t for _, t in said] == want, "refusals relayed: %s\nwanted: %s" % (said, want))
    check(not [t for _, t in logs if "not searched" in t],
          "refusals in English: %s" % [t for _, t in logs if "not searched" in t])
    end = next(i for i, m in enumerate(seq) if m.get("method") == "hyperkernel/episodeChanged"
               and m["params"].get("episode") == episode
               and m["params"]["status"] in ("completed", "stopped", "failed"))
    check(said[-1][0] < end, "a refusal after the episode's end")
    print("zh-CN: episode %d: its 12 refusals relayed in Chinese, in order, before its end"
          % episode)


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
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="hk-i18n-ep-"))
    # an English environment: the language comes from the setting alone
    env = dict(os.environ, TMPDIR=tmp, HOME=tmp, XDG_DATA_HOME=os.path.join(tmp, "xdg"),
               LANG="en_US.UTF-8")
    for k in ("HK_NO_GPU", "LC_ALL", "LC_MESSAGES"):
        env.pop(k, None)
    shutil.copy(os.path.join(SRC, "bench", "kernels", "saxpy.cu"), tmp)
    for f in ("refusals.cu", "refusals.refusals.bench.json"):
        shutil.copy(os.path.join(SRC, "tests", "data", "episode", f), tmp)
    opts = {"compile": {"enabled": False}, "language": "zh-CN",
            "episodes": {"simulate": True, "db": os.path.join(tmp, "history.db"), "budget": 1,
                         "check": "quick"}}
    c = Client(hkls, env, CAPS, opts, tmp, "i18n")
    try:
        run(c, tmp)
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
