# SPDX-License-Identifier: MIT
#
# analyze.py - the path of one marked call (readpath.sh), from trace.py's
# events, as a call tree in execution order, and its measures:
#
#   functions  distinct libanyring functions entered
#   files      distinct source files defining them
#   switches   call edges (walking the call tree depth first, in execution
#              order, every call once) whose caller and callee are defined
#              in different files; the application's call into the library
#              (mark_submit -> io_uring_submit) is not counted
#   submit.c   of those, the edges into a function of src/user/submit.c
#              from a function of another file (entries into submit.c)
# and, over the whole marked call, for comparison with other counts:
#   switches_with_returns          every call returns: twice the switches
#   submit_c_entries_with_returns  entries into submit.c by a call, plus
#                                  returns into submit.c from another file
#   list_neighbour_switches        neighbours in the ordered list (read
#                                  flat, depth ignored) in different files
#
# Two views of the same run:
#   compiled   out-of-line functions only: what a call instruction (or a
#              jump into another function, a tail call) enters; what
#              callgrind and a debugger's backtrace show
#   source     also the functions inlined into them (DWARF inline
#              instances the executed instructions belong to); an inline
#              instance counts once per activation of the function it is
#              inlined into, however often the instructions interleave
#
# A function's file is where its definition is in the source tree (defs.py),
# not the debug information's file of its first instruction, which is often
# a header's inlined code.
#
#   python3 analyze.py TRACE.jsonl SRCROOT [CALLGRIND_OUT] [--tree]
import json
import re
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from defs import find_def  # noqa: E402
import cgparse  # noqa: E402

LIB = "libanyring"


def norm(name):
    """callgrind's names of compiler clones: foo.constprop.0, foo.cold"""
    return re.sub(r"\.(cold|part|isra|constprop|lto_priv)(\.\d+)?", "", name)


class Node:
    def __init__(self, nid, name, file, kind, obj, step):
        self.id, self.name, self.file, self.kind = nid, name, file, kind
        self.obj, self.step = obj, step
        self.children = []
        self.parent = None


def segments(path):
    seg = None
    for line in open(path):
        e = json.loads(line)
        if e["ev"] == "begin":
            seg = {"mark": e["mark"], "events": []}
        elif e["ev"] == "end":
            seg["steps"] = e["steps"]
            yield seg
            seg = None
        elif seg is not None:
            seg["events"].append(e)


def build(seg, srcroot, fileof):
    """The call tree: one node per call (an out-of-line function's
    activation) or per inline instance in it; cq: the step at which the
    CQ tail moved."""
    nodes = {}
    stack = []
    root = None
    seg["cq_step"] = None
    for e in seg["events"]:
        if e["ev"] == "cq_tail":
            if seg["cq_step"] is None:
                seg["cq_step"] = e["step"]
            continue
        if e["ev"] != "enter":
            continue
        # an inline instance: its block and its function (nested inlined
        # functions can start at the same address)
        nid = tuple(e["id"]) + (e["fn"],)
        d = e["depth"]
        stack = stack[:d]
        if nid in nodes:		# an inline instance entered again
            stack.append(nodes[nid])
            continue
        n = Node(nid, e["fn"], e["file"], e["kind"], e["obj"], e["step"])
        if LIB in n.obj and e["fn"] not in fileof:
            d_files = find_def(srcroot, e["fn"])
            fileof[e["fn"]] = (d_files[0] if len(d_files) == 1 else
                               e["file"] + ("?" if not d_files else
                                            "?" + ",".join(d_files)))
        if LIB in n.obj:
            n.file = fileof[e["fn"]]
        parent = stack[-1] if stack else None
        # a function inlined into (a clone of) itself is the same function
        if parent is not None and n.kind == "inline" and \
                parent.name == n.name:
            nodes[nid] = parent
            stack.append(parent)
            continue
        nodes[nid] = n
        if parent is None:
            root = n
        else:
            n.parent = parent
            parent.children.append(n)
        stack.append(n)
    return root


def walk(root, view):
    """(depth, node, caller) in execution order for the view's nodes of
    the library; caller: the nearest enclosing node of the view (or of
    the application, for the entry)."""
    out = []

    def shown(n):
        if view == "compiled" and n.kind == "inline":
            return False
        return True

    def rec(n, depth, caller):
        if shown(n) and (LIB in n.obj or n is root):
            out.append((depth, n, caller))
            caller, depth = n, depth + 1
        if LIB not in n.obj and n is not root:
            return		# libc and the like: not followed
        for c in n.children:
            rec(c, depth, caller)
    rec(root, 0, None)
    return out


def foreign_calls(root):
    out = []

    def rec(n, libcaller):
        for c in n.children:
            if LIB in c.obj:
                rec(c, c if c.kind != "inline" else libcaller)
            elif c.kind != "inline" and libcaller is not None:
                out.append((libcaller.name, c.name))
    rec(root, None)
    return out


def measure(seq, upto=None):
    """seq from walk(); upto: only calls entered at or before this step"""
    funcs, files, sw, sub, subret, calls = [], [], 0, 0, 0, 0
    for depth, n, caller in seq:
        if caller is None:
            continue		# the application's marked function
        if upto is not None and n.step > upto:
            continue
        if n.name not in funcs:
            funcs.append(n.name)
        if n.file not in files:
            files.append(n.file)
        if LIB not in caller.obj:
            continue		# the application's call into the library
        calls += 1
        if caller.file != n.file:
            sw += 1
            if n.file.endswith("src/user/submit.c"):
                sub += 1
            if caller.file.endswith("src/user/submit.c"):
                subret += 1	# control comes back to submit.c
    r = {"functions": len(funcs), "files": len(files), "calls": calls,
         "switches": sw, "submit_c_entries": sub}
    if upto is None:
        # every call returns: counting returns too doubles the switches;
        # submit.c is re-entered by each return from another file
        r["switches_with_returns"] = 2 * sw
        r["submit_c_entries_with_returns"] = sub + subret
        # the ordered list read as a flat sequence: neighbours in
        # different files (not a call measure; for comparison only)
        flat = [n for depth, n, caller in seq if caller is not None]
        r["list_neighbour_switches"] = sum(
            1 for a, b in zip(flat, flat[1:]) if a.file != b.file)
    r["file_list"] = files
    return r


def print_tree(seq, cq_step, out):
    marked = False
    for depth, n, caller in seq:
        if cq_step is not None and not marked and n.step > cq_step:
            out.write("    %s<-- the CQE is visible (CQ tail stored)\n" %
                      ("  " * depth))
            marked = True
        sw = ""
        if caller is not None and LIB in caller.obj and LIB in n.obj and \
                caller.file != n.file:
            sw = "  [switch]"
        tag = {"real": "", "tail": " (tail call)", "inline": " (inline)"}
        out.write("%3s %s%s  %s%s%s\n" % (
            "", "  " * depth, n.name, n.file, tag.get(n.kind, " (" +
                                                      n.kind + ")"), sw))
    if cq_step is not None and not marked:
        out.write("    <-- the CQE is visible (CQ tail stored)\n")


def callgrind_check(cgfile, root, out):
    funcs, edges = cgparse.parse(cgfile)
    cg = {}
    for (a, b), k in edges.items():
        if k and LIB in (funcs[a][0] or "") and LIB in (funcs[b][0] or ""):
            key = (norm(a), norm(b))
            if key[0] != key[1]:
                cg[key] = cg.get(key, 0) + k
    gd = {}
    for depth, n, caller in walk(root, "compiled"):
        if caller is not None and LIB in caller.obj and LIB in n.obj:
            key = (caller.name, n.name)
            gd[key] = gd.get(key, 0) + 1
    if cg == gd:
        out.write("callgrind: the same %d call edges (%d calls) between "
                  "libanyring functions\n" % (len(cg), sum(cg.values())))
        return True
    out.write("callgrind DIFFERS:\n")
    for k in sorted(set(cg) | set(gd)):
        if cg.get(k, 0) != gd.get(k, 0):
            out.write("  %s -> %s: callgrind %d, gdb %d\n" %
                      (k[0], k[1], cg.get(k, 0), gd.get(k, 0)))
    return False


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    tree = "--tree" in sys.argv
    trace, srcroot = args[0], args[1]
    cgfile = args[2] if len(args) > 2 else None
    out = sys.stdout
    fileof = {}
    result = {}
    for seg in segments(trace):
        root = build(seg, srcroot, fileof)
        mark = seg["mark"]
        res = {"steps": seg["steps"]}
        for view in ("compiled", "source"):
            seq = walk(root, view)
            res[view] = measure(seq)
            if seg["cq_step"] is not None:
                res[view + "_to_cqe"] = measure(seq, seg["cq_step"])
            if tree:
                out.write("\n== %s, %s view (%d instructions stepped)\n" %
                          (mark, view, seg["steps"]))
                print_tree(seq, seg["cq_step"], out)
        fc = foreign_calls(root)
        res["libc_calls"] = ["%s -> %s" % x for x in fc]
        if tree:
            out.write("\n== %s: calls out of the library: %s\n" %
                      (mark, ", ".join(res["libc_calls"]) or "none"))
            if cgfile and mark == "mark_submit":
                callgrind_check(cgfile, root, out)
        result[mark] = res
    bad = sorted(f for f in set(fileof.values()) if "?" in f)
    if bad:
        out.write("\nWARNING: definitions not found or ambiguous: %s\n" %
                  ", ".join("%s=%s" % (k, v) for k, v in fileof.items()
                            if "?" in v))
    out.write("\n" + json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
