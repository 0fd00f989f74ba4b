#!/usr/bin/env python3
"""Writes seed inputs for fuzz_lsp into corpus/: one per protocol transcript (its
client messages, framed, without the harness preamble), and hand-written sessions
that edit the harness's preloaded document. Re-run after adding transcripts; the
fuzzer's own finds are added next to these."""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, "..", "protocol")
DATA = os.path.join(HERE, "..", "data", "protocol")
OUT = os.path.join(HERE, "corpus")


def frame(body):
    b = body.encode("utf-8", "surrogatepass")
    return b"Content-Length: %d\r\n\r\n" % len(b) + b


def subst(text):
    def text_of(mo):
        with open(os.path.join(DATA, mo.group(1)), encoding="utf-8") as f:
            return json.dumps(f.read(), ensure_ascii=False)
    return re.sub(r"\$TEXT\(([^)]+)\)", text_of, text).replace("$ROOT", "/w")


def msg(method, params=None, id=None):
    m = {"jsonrpc": "2.0", "method": method}
    if id is not None:
        m["id"] = id
    if params is not None:
        m["params"] = params
    return json.dumps(m, ensure_ascii=False)


def rng(l1, c1, l2, c2):
    return {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}


def change(v, changes):
    return msg("textDocument/didChange", {"textDocument": {"uri": "file:///f.cu", "version": v},
                                          "contentChanges": changes})


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in sorted(os.listdir(PROTO)):
        if not name.endswith(".t"):
            continue
        data = bytearray(b"\x00")
        for ln in open(os.path.join(PROTO, name), encoding="utf-8").read().split("\n"):
            if ln.startswith("-> "):
                data += frame(subst(ln[3:]))
            elif ln.startswith("=> "):
                data += json.loads(ln[3:]).encode("utf-8", "surrogatepass")
        with open(os.path.join(OUT, "transcript_" + name[:-2]), "wb") as f:
            f.write(bytes(data))
    td = {"uri": "file:///f.cu"}
    sessions = {
        "edit_utf16": (1 | 4, [
            change(2, [{"range": rng(0, 6, 0, 8), "text": "x"}]),
            change(3, [{"range": rng(3, 0, 3, 0), "text": "// \u4f60\u597d\n"},
                       {"range": rng(9, 2, 9, 8), "text": "k<64>"}]),
            msg("textDocument/documentSymbol", {"textDocument": td}, 1),
            msg("textDocument/hover", {"textDocument": td, "position": {"line": 4, "character": 40}}, 2),
            change(4, [{"range": rng(2, 10, 1, 0), "text": ""}]),
            change(5, [{"text": "__global__ void z(){}\n"}]),
            msg("textDocument/hover", {"textDocument": td, "position": {"line": 0, "character": 17}}, 3),
        ]),
        "edit_utf8": (1 | 2, [
            change(2, [{"range": rng(0, 3, 0, 9), "text": "abc"}]),
            msg("textDocument/hover", {"textDocument": td, "position": {"line": 0, "character": 4}}, 1),
            change(3, [{"range": rng(11, 0, 12, 0), "text": ""}]),
            msg("textDocument/documentSymbol", {"textDocument": td}, 2),
            msg("$/cancelRequest", {"id": 2}),
            msg("shutdown", None, 4),
            msg("exit"),
        ]),
        "config": (1, [
            msg("workspace/didChangeConfiguration", {"settings": {"hyperkernel": {
                "target": "dcu:gfx906", "compile": {"enabled": True, "flags": ["-DX"],
                                                    "debounceMs": 0}, "log": {"level": "trace"}}}}),
            msg("$/setTrace", {"value": "verbose"}),
            msg("textDocument/didSave", {"textDocument": td}),
            msg("textDocument/didClose", {"textDocument": td}),
        ]),
    }
    for name, (mode, msgs) in sessions.items():
        with open(os.path.join(OUT, "session_" + name), "wb") as f:
            f.write(bytes([mode]) + b"".join(frame(m) for m in msgs))


if __name__ == "__main__":
    main()
