# SPDX-License-Identifier: MIT
# cgparse.py - a callgrind output file's call edges (caller -> callee,
# calls) and functions (name, object, file), for readpath.sh
import re
import sys


def parse(path):
    names = {"fl": {}, "fn": {}, "ob": {}}
    alias = {"fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl", "cfn": "fn",
             "cob": "ob"}
    funcs = {}	# fn -> (ob, fl)
    edges = {}	# (caller, callee) -> calls
    cur = {"ob": None, "fl": None, "fn": None}
    call = {"ob": None, "fl": None, "fn": None}
    pending = None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=(.*)$", line)
        if m:
            key, val = m.group(1), m.group(2)
            kind = alias.get(key, key)
            mm = re.match(r"^\((\d+)\)(?: (.*))?$", val)
            if mm:
                if mm.group(2) is not None:
                    names[kind][mm.group(1)] = mm.group(2)
                val = names[kind][mm.group(1)]
            if key in ("ob", "fl", "fn"):
                cur[key] = val
                if key == "fn":
                    funcs.setdefault(val, (cur["ob"], cur["fl"]))
                    call = {"ob": cur["ob"], "fl": cur["fl"], "fn": None}
            elif key in ("cob",):
                call["ob"] = val
            elif key in ("cfi", "cfl"):
                call["fl"] = val
            elif key == "cfn":
                call["fn"] = val
                funcs.setdefault(val, (call["ob"] or cur["ob"],
                                       call["fl"] or cur["fl"]))
            continue
        m = re.match(r"^calls=(\d+)", line)
        if m:
            pending = int(m.group(1))
            continue
        if pending is not None:
            k = (cur["fn"], call["fn"])
            edges[k] = edges.get(k, 0) + pending
            pending = None
            call = {"ob": cur["ob"], "fl": cur["fl"], "fn": None}
    return funcs, edges


if __name__ == "__main__":
    funcs, edges = parse(sys.argv[1])
    for (a, b), n in sorted(edges.items()):
        print("%4d  %s [%s] -> %s [%s]" % (n, a, funcs[a][1], b, funcs[b][1]))
