# SPDX-License-Identifier: MIT
# defs.py - where a C function is defined in a source tree: the file(s)
# holding "NAME(...) {" at the start of a line (the return type may be on
# the line before, as the project writes them), for readpath.sh
import os
import re

_cache = {}


def _files(root):
    if root not in _cache:
        out = []
        for d, _, fs in os.walk(root):
            for f in sorted(fs):
                if f.endswith((".c", ".h")):
                    p = os.path.join(d, f)
                    out.append((os.path.relpath(p, os.path.dirname(root)),
                                open(p, errors="replace").read()))
        _cache[root] = sorted(out)
    return _cache[root]


def _is_def(text, pos):
    """text[pos] is the '(' after a name: a definition if the matching ')'
    is followed (past attributes and whitespace) by '{'."""
    depth = 0
    i = pos
    while i < len(text):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        elif c in ";{}" and depth > 0 and c != "{":
            return False
        i += 1
    rest = text[i + 1:i + 400]
    rest = re.sub(r"^\s*(__attribute__\s*\(\(.*?\)\)\s*)*", "", rest,
                  flags=re.S)
    return rest.lstrip().startswith("{")


def find_def(root, name):
    """Files (relative to root's parent, e.g. src/user/submit.c) that
    define name."""
    pat = re.compile(r"^(?:[A-Za-z_][^\n;{}=]*[\s*)])?" + re.escape(name) +
                     r"\s*\(", re.M)
    hits = []
    for rel, text in _files(root):
        for m in pat.finditer(text):
            if _is_def(text, m.end() - 1):
                hits.append(rel)
                break
    return hits
