#!/usr/bin/env python3
"""hkls with stdin and stdout redirected to regular files (`hkls < in > out`): the
transport reads and writes files through libuv's fs requests instead of pipes.
Usage: stdin_file.py HKLS"""
import json
import os
import subprocess
import sys
import tempfile


def frame(obj):
    b = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(b) + b


def main(hkls):
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {},
         "initializationOptions": {"compile": {"enabled": False}}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": "file:///f.cu", "languageId": "cuda", "version": 1,
            "text": "__global__ void k(int *p) { p[0] = 1; }\n"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentSymbol",
         "params": {"textDocument": {"uri": "file:///f.cu"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    with tempfile.TemporaryDirectory() as d:
        inp, out = os.path.join(d, "in"), os.path.join(d, "out")
        with open(inp, "wb") as f:
            f.write(b"".join(frame(m) for m in msgs))
        with open(inp, "rb") as fi, open(out, "wb") as fo:
            rc = subprocess.run([hkls], stdin=fi, stdout=fo, timeout=20).returncode
        data = open(out, "rb").read()
    replies = []
    while data:
        hdr, _, rest = data.partition(b"\r\n\r\n")
        n = int(hdr.split(b":")[1])
        replies.append(json.loads(rest[:n]))
        data = rest[n:]
    ids = [r.get("id") for r in replies if "id" in r]
    ok = rc == 0 and ids == [1, 2, 3] and replies[1]["result"][0]["name"] == "k"
    print("ok" if ok else "FAIL rc=%d replies=%s" % (rc, json.dumps(replies)[:500]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
