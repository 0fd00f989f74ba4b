#!/usr/bin/env python3
"""Protocol test of the server's language (docs/i18n.md) against the real hkls over stdio.

The code actions and code lenses of a kernel come back in Chinese when initialize says
"locale": "zh-CN", and in English with "en", whatever LANG says; without a locale the
environment decides (LC_ALL before LANG); a "language" setting wins over both, and
workspace/didChangeConfiguration switches the language of the next replies. The commands
the titles carry stay the same in every language.

usage: i18n.py HKLS      exit 0 pass, 1 fail. Standard library only."""
import os
import shutil
import sys
import tempfile

from trust import Client, Fail, check

KERNEL = """__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""

ZH = {"针对 NVIDIA 优化", "针对 DCU 优化", "创建基准测试描述 (bench spec)"}
EN = {"Optimize for NVIDIA", "Optimize for DCU", "Create benchmark spec"}
LENS_ZH = {"优化 (NVIDIA)", "优化 (DCU)"}
LENS_EN = {"Optimize (NVIDIA)", "Optimize (DCU)"}


def close(c):
    """Shutdown and exit: the server must be gone within 5 s, with status 0."""
    c.send({"id": 999, "method": "shutdown"})  # no "params": null (trust.Client's close)
    c.wait(lambda m: m.get("id") == 999 and "result" in m, 10, "the reply to shutdown")
    c.send({"method": "exit"})
    rc = c.p.wait(timeout=5)
    check(rc == 0, "the server exited with %s" % rc)


def env_with(tmp, **kv):
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    env["XDG_CONFIG_HOME"] = os.path.join(tmp, "xdg")
    env["XDG_DATA_HOME"] = os.path.join(tmp, "data")
    env.update(kv)
    return env


def titles(c, uri):
    r = c.request("textDocument/codeAction",
                  {"textDocument": {"uri": uri},
                   "range": {"start": {"line": 0, "character": 17},
                             "end": {"line": 0, "character": 17}},
                   "context": {"diagnostics": []}})
    check("result" in r, "codeAction failed: %s" % r)
    acts = r["result"]
    for a in acts:
        check(a["command"]["title"] == a["title"], "command title differs: %s" % a)
    return {a["title"]: a["command"]["command"] for a in acts}


def lens_titles(c, uri):
    r = c.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    check("result" in r, "codeLens failed: %s" % r)
    return {l["command"]["title"] for l in r["result"]}


def session(hkls, tmp, name, env, locale, init_opts=None):
    ws = os.path.join(tmp, "ws")
    db = os.path.join(tmp, name + ".db")
    opts = {"compile": {"enabled": False}, "episodes": {"db": db}}
    opts.update(init_opts or {})
    c = Client(hkls, env, ws, opts, name, locale=locale)
    uri = "file://" + os.path.join(ws, "k.cu")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda",
                                                       "version": 1, "text": KERNEL}})
    return c, uri


def expect(hkls, tmp, name, env, locale, want, want_lens, init_opts=None):
    c, uri = session(hkls, tmp, name, env, locale, init_opts)
    try:
        t = titles(c, uri)
        check(want <= set(t), "%s: code actions %s, expected %s" % (name, sorted(t), sorted(want)))
        opt = "针对 NVIDIA 优化" if want is ZH else "Optimize for NVIDIA"
        check(t[opt] == "hyperkernel.optimize", "%s: the command changed with the language" % name)
        lt = lens_titles(c, uri)
        check(want_lens <= lt, "%s: code lenses %s, expected %s" % (name, sorted(lt),
                                                                    sorted(want_lens)))
    except BaseException:
        c.close()
        raise
    close(c)


def server_words(hkls, tmp, name, env, locale, want):
    """The server's own sentences (issue 14): the message of a request's error response
    (its code never changes), and window/logMessage's warnings with the "client settings"
    label. want: the expected texts in order; returns the error codes."""
    c, uri = session(hkls, tmp, name, env, locale)
    try:
        codes, got = [], []
        for method, params in (
                ("workspace/executeCommand", {"command": "hyperkernel.nope"}),
                ("workspace/executeCommand", {"command": "hyperkernel.applyVersion",
                                              "arguments": []}),
                ("textDocument/hover", {"textDocument": {"uri": uri},
                                        "position": {"line": -1, "character": 0}}),
                ("textDocument/codeAction", {"textDocument": {"uri": uri + ".gone"},
                                             "range": {"start": {"line": 0, "character": 0},
                                                       "end": {"line": 0, "character": 0}},
                                             "context": {"diagnostics": []}}),
                ("textDocument/codeLens", {"textDocument": {}}),
                ("workspace/executeCommand", {"command": "hyperkernel.trustFolder",
                                              "arguments": [{"folder": "relative/dir"}]})):
            r = c.request(method, params)
            check("error" in r, "%s: %s did not fail: %s" % (name, method, r))
            codes.append(r["error"]["code"])
            got.append(r["error"]["message"])
        # a reply's message for a person: cancelling an episode this server does not run
        r = c.request("workspace/executeCommand", {"command": "hyperkernel.cancel",
                                                   "arguments": [{"episode": 4242}]})
        check("result" in r and r["result"].get("ok") is False,
              "%s: cancel of no episode: %s" % (name, r))
        got.append(r["result"].get("message", ""))
        # a client without window/showDocument is told where createSpec wrote the spec
        r = c.request("workspace/executeCommand", {"command": "hyperkernel.createSpec",
                                                   "arguments": [{"uri": uri,
                                                                  "kernel": "saxpy"}]})
        check("result" in r, "%s: createSpec failed: %s" % (name, r))
        os.unlink(r["result"]["path"])
        m = c.wait(lambda m: m.get("method") == "window/showMessage"
                   and r["result"]["path"] in m["params"]["message"], 10,
                   "%s: where the spec went" % name)
        got.append(m["params"]["message"])
        n_asked = len(got)
        # a change the server refuses: its reason in the log (documents/, session 30)
        c.notify("textDocument/didChange",
                 {"textDocument": {"uri": uri, "version": 2},
                  "contentChanges": [{"range": {"start": {"line": 2, "character": 0},
                                                "end": {"line": 1, "character": 0}},
                                      "text": "x"}]})
        c.notify("workspace/didChangeConfiguration",
                 {"settings": {"episodes": {"db": os.path.join(tmp, name + ".db")},
                               "bogusSetting": 1, "isTrusted": "yes"}})
        for what in want[n_asked:]:
            m = c.wait(lambda m: m.get("method") == "window/logMessage"
                       and what in m["params"]["message"], 10, "%s: log '%s'" % (name, what))
            got.append(what)
        for w, g in zip(want, got):
            check(w in g, "%s: expected '%s', got '%s'" % (name, w, g))
    except BaseException:
        c.close()
        raise
    close(c)
    return codes


def run(hkls, tmp):
    os.makedirs(os.path.join(tmp, "ws"))
    os.makedirs(os.path.join(tmp, "xdg"))
    os.makedirs(os.path.join(tmp, "data"))
    with open(os.path.join(tmp, "ws", "k.cu"), "w") as f:
        f.write(KERNEL)
    en_env = env_with(tmp, LANG="en_US.UTF-8")
    zh_env = env_with(tmp, LANG="zh_CN.UTF-8")
    # the client's locale wins over the environment, both ways
    expect(hkls, tmp, "zh-locale", en_env, "zh-CN", ZH, LENS_ZH)
    expect(hkls, tmp, "en-locale", zh_env, "en", EN, LENS_EN)
    expect(hkls, tmp, "hans-locale", en_env, "zh-Hans", ZH, LENS_ZH)
    # no locale: the environment, LC_ALL before LANG
    expect(hkls, tmp, "zh-env", zh_env, None, ZH, LENS_ZH)
    expect(hkls, tmp, "lc-all", env_with(tmp, LANG="zh_CN.UTF-8", LC_ALL="C"), None, EN,
           LENS_EN)
    expect(hkls, tmp, "default", env_with(tmp), None, EN, LENS_EN)
    # a "language" setting wins over the client's locale
    expect(hkls, tmp, "setting", en_env, "zh-CN", EN, LENS_EN, {"language": "en"})
    # and a configuration change switches the next replies
    c, uri = session(hkls, tmp, "change", en_env, "en")
    try:
        check(EN <= set(titles(c, uri)), "change: not English at first")
        c.notify("workspace/didChangeConfiguration",
                 {"settings": {"episodes": {"db": os.path.join(tmp, "change.db")},
                               "language": "zh-CN"}})
        check(ZH <= set(titles(c, uri)), "change: not Chinese after language zh-CN")
        c.notify("workspace/didChangeConfiguration",
                 {"settings": {"episodes": {"db": os.path.join(tmp, "change.db")},
                               "language": "auto"}})
        check(EN <= set(titles(c, uri)), "change: auto is not the client's locale again")
        c.notify("workspace/didChangeConfiguration", {"settings": {"language": "fr"}})
        c.wait(lambda m: m.get("method") == "window/logMessage"
                   and "language must be" in m["params"]["message"], 10, "the bad value's message")
        check(EN <= set(titles(c, uri)), "change: a bad value changed the language")
    except BaseException:
        c.close()
        raise
    close(c)
    zh_codes = server_words(hkls, tmp, "zh-words", en_env, "zh-CN",
                            ["未知命令", "参数应为：[{uri, kernel, episode, version}]",
                             "position 必须是 {line, character}，且为非负整数",
                             "文档未打开", "textDocument.uri 必须是字符串",
                             "目录必须是绝对路径或 file:// URI",
                             "该优化任务不在此服务器中运行", "打开 /",
                             "客户端设置：已忽略未知设置 \"bogusSetting\"",
                             "客户端设置：isTrusted 必须是 true 或 false；已忽略",
                             "内容变更的范围颠倒（结束位置在开始位置之前）"])
    en_codes = server_words(hkls, tmp, "en-words", zh_env, "en",
                            ["unknown command", "arguments: [{uri, kernel, episode, version}]",
                             "position must be {line, character} with non-negative integers",
                             "document not open", "textDocument.uri must be a string",
                             "the folder must be an absolute path or a file:// URI",
                             "that episode is not running in this server", "Open /",
                             "client settings: unknown setting \"bogusSetting\" ignored",
                             "client settings: isTrusted must be true or false; ignored",
                             "a content change has an inverted range (end before start)"])
    check(zh_codes == en_codes, "error codes differ by language: %s %s" % (zh_codes, en_codes))
    print("ok: code actions and lenses follow locale, environment and setting")
    print("ok: error responses and log messages in zh-CN and en, the same codes")
    return 0


def main():
    hkls = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="hk_i18n_proto_")
    try:
        return run(hkls, os.path.realpath(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Fail as e:
        print("FAIL:", e)
        sys.exit(1)
