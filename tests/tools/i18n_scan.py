#!/usr/bin/env python3
"""English prose that reaches a person without the message table (docs/i18n.md).

Lists the string literals of C sources that read as English sentences (three words or
more once printf conversions are taken out) and are not a log line for developers
(HK_TRACE, HK_DEBUG, HK_INFO, HK_WARN, HK_ERROR) or marked on their line with the
comment `i18n: not for people` (a JSON value scripts read, a name, a command line).
A sentence of the table is written as hk_tr(...)/hk_tr_in(...)/EN(...), never as a
literal, so a literal sentence in a scanned place is one that a zh-CN user would read in
English.

    i18n_scan.py [--root DIR] [--list] FILE[:FUNCTION]...

FILE:FUNCTION scans that function's body only. Exit 1 when anything is found (each
finding on a line: FILE:LINE: "text"), 0 when not; --list prints the findings and exits 0
(a survey of the rest of the tree).
"""
import argparse
import os
import re
import sys

LOG_MACROS = ("HK_TRACE", "HK_DEBUG", "HK_INFO", "HK_WARN", "HK_ERROR")
MARK = "i18n: not for people"


def strip_comments(src):
    """src with comments blanked (newlines kept), string and char literals untouched."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_span(src, name):
    """(start, end) of the body of function name in src (comments stripped)."""
    m = re.search(r"^[A-Za-z_][^;{}]*\b" + re.escape(name) + r"\s*\([^;{]*\)\s*\{", src, re.M)
    if not m:
        return None
    depth, i = 0, m.end() - 1
    while i < len(src):
        if src[i] == "{":
            depth += 1
        elif src[i] == "}":
            depth -= 1
            if depth == 0:
                return m.start(), i + 1
        elif src[i] in "\"'":
            q = src[i]
            i += 1
            while i < len(src) and src[i] != q:
                i += 2 if src[i] == "\\" else 1
        i += 1
    return m.start(), len(src)


def prose(text):
    """Whether a literal's text reads as an English sentence."""
    t = re.sub(r"%[-+ #0]*[0-9*]*(\.[0-9*]+)?[hlzjtL]*[diouxXeEfgGcsp%]", " ", text)
    t = re.sub(r"\\.", " ", t)
    words = re.findall(r"(?<![\w./-])[A-Za-z][a-z]+(?:'[a-z]+)?(?![\w./-])", t)
    return len(words) >= 3 and " " in t.strip()


def literals(src):
    """(offset, text) of each run of adjacent string literals (joined)."""
    for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*', src):
        parts = re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(0))
        yield m.start(), "".join(parts)


def statement_start(src, pos):
    k = max(src.rfind(";", 0, pos), src.rfind("{", 0, pos), src.rfind("}", 0, pos))
    return k + 1


def scan(path, func, raw):
    src = strip_comments(raw)
    lo, hi = 0, len(src)
    if func:
        span = function_span(src, func)
        if not span:
            return [(path, 0, "no function %s" % func)]
        lo, hi = span
    raw_lines = raw.split("\n")
    found = []
    for off, text in literals(src):
        if off < lo or off >= hi or not prose(text):
            continue
        line = src.count("\n", 0, off) + 1
        line_start = src.rfind("\n", 0, off) + 1
        if src[line_start:off].lstrip().startswith("#"):
            continue
        stmt = src[statement_start(src, off):off]
        if any(re.search(r"\b%s\s*\(" % m, stmt) for m in LOG_MACROS):
            continue
        end_line = src.count("\n", 0, off + len(text)) + 1
        if any(MARK in raw_lines[k - 1] for k in range(line, min(end_line + 1, len(raw_lines)) + 1)):
            continue
        found.append((path, line, text))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("places", nargs="+")
    a = ap.parse_args()
    found = []
    for place in a.places:
        path, _, func = place.partition(":")
        with open(os.path.join(a.root, path), encoding="utf-8") as f:
            found += scan(path, func or None, f.read())
    for path, line, text in found:
        print('%s:%d: "%s"' % (path, line, text[:160]))
    if a.list:
        print("%d literal sentences" % len(found), file=sys.stderr)
        return 0
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
