# SPDX-License-Identifier: MIT
#
# trace.py - gdb script (readpath.sh): single-steps one call of a marked
# function of readpath.c (mark_submit, mark_wait) instruction by
# instruction and writes, as JSON lines, every function entered and left
# on the way: out-of-line functions (a call, or a jump into another
# function: a tail call), functions inlined into them (DWARF inline
# blocks, from the pc), and functions without debug information (libc:
# not stepped into, run to their return). Also when ring.cq.ktail (the
# CQ tail the application reads) changes: the CQE is visible.
#
#   READPATH_OUT=file READPATH_MARKS="mark_submit mark_wait" \
#   gdb -q -batch -x trace.py --args ./readpath-after ioprio data
import gdb
import json
import os

OUT = open(os.environ["READPATH_OUT"], "w")
MARKS = os.environ.get("READPATH_MARKS", "mark_submit mark_wait").split()
ARCH = None
SERIAL = [0]


def emit(**kw):
    OUT.write(json.dumps(kw) + "\n")


def sym_name(pc):
    """The minimal symbol at pc ('memcpy@plt', 'pthread_mutex_lock', ...)."""
    s = gdb.execute("info symbol 0x%x" % pc, to_string=True).strip()
    if s.startswith("No symbol"):
        return "0x%x" % pc
    name = s.split(" in section ")[0]
    if " + " in name:
        name = name.split(" + ")[0]
    return name


def objfile_of(pc):
    so = gdb.solib_name(pc)
    return so if so else gdb.current_progspace().filename


def chain_at(pc):
    """The functions at pc, outermost (the out-of-line one) first: a list of
    (name, def_file, kind, block_start). The file a function is defined in:
    the out-of-line function's entry line gives it; an inlined instance's symbol
    gives its call site's file (gdb), which is the file of the function
    around it, so each inlined level's own file is the next inner level's
    call file, and the innermost level's is the file of pc's line."""
    try:
        b = gdb.block_for_pc(pc)
    except RuntimeError:
        b = None
    blocks = []
    while b is not None:
        if b.function is not None:
            blocks.append(b)
        b = b.superblock
    if not blocks:
        return None
    blocks.reverse()
    out = []
    sal = gdb.find_pc_line(pc)
    pc_file = sal.symtab.filename if sal.symtab else "?"
    for i, blk in enumerate(blocks):
        fn = blk.function
        if i == 0:
            # the line of its entry (its symbol's file can be a header
            # that declares it: GCC's DW_AT_decl_file)
            try:
                entry = int(fn.value().address)
            except (gdb.error, TypeError, ValueError):
                entry = blk.start
            esal = gdb.find_pc_line(entry)
            f = esal.symtab.filename if esal.symtab else "?"
        elif i + 1 < len(blocks):
            inner = blocks[i + 1].function
            f = inner.symtab.filename if inner.symtab else "?"
        else:
            f = pc_file
        out.append((fn.name, f, "real" if i == 0 else "inline", blk.start))
    return out


def real_start(pc):
    """The out-of-line function (outermost block) start, or the minimal
    symbol's name when pc has no debug information."""
    c = chain_at(pc)
    if c:
        return ("dbg", c[0][0], c[0][3])
    return ("nodbg", sym_name(pc), None)


class Frame:
    """One out-of-line activation (a call), with the functions that
    reached it by tail calls, and the inline chain at its call site."""

    def __init__(self, name, file, kind, obj):
        SERIAL[0] += 1
        self.serial = SERIAL[0]
        self.funcs = [(name, file, kind, obj)]	# [0] called, then tail-called
        self.inl = []		# inline levels at the current pc (or call site)


def logical(stack):
    """The logical stack: each frame's function(s) then its inline levels;
    each node (id, name, file, kind, object)."""
    out = []
    for fr in stack:
        for i, (n, f, k, o) in enumerate(fr.funcs):
            out.append((("F", fr.serial, i), n, f, k, o))
        o = fr.funcs[-1][3]
        for (n, f, k, start) in fr.inl:
            out.append((("I", fr.serial, start), n, f, k, o))
    return out


def set_inl(fr, pc):
    c = chain_at(pc)
    fr.inl = [(n, f, "inline", s) for (n, f, k, s) in c[1:]] if c else []


def diff_emit(prev, cur, step):
    i = 0
    while i < len(prev) and i < len(cur) and prev[i][0] == cur[i][0]:
        i += 1
    for node in reversed(prev[i:]):
        emit(ev="exit", id=list(node[0]), fn=node[1], step=step)
    for d in range(i, len(cur)):
        node = cur[d]
        emit(ev="enter", id=list(node[0]), fn=node[1], file=node[2],
             kind=node[3], obj=os.path.basename(node[4]), depth=d,
             step=step)


def read_u32(addr):
    m = gdb.selected_inferior().read_memory(addr, 4)
    return int.from_bytes(bytes(m), "little")


def read_u64(addr):
    m = gdb.selected_inferior().read_memory(addr, 8)
    return int.from_bytes(bytes(m), "little")


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & 0xffffffffffffffff


def trace_one(mark):
    """At mark's first instruction: step until it returns."""
    global ARCH
    ARCH = gdb.selected_frame().architecture()
    thread = gdb.selected_thread()
    ktail = int(gdb.parse_and_eval("(unsigned long)ring.cq.ktail"))
    tail = read_u32(ktail)
    pc = reg("pc")
    c = chain_at(pc)
    root = Frame(c[0][0], c[0][1], "real", objfile_of(pc))
    stack = [root]
    set_inl(root, pc)
    prev = logical(stack)
    emit(ev="begin", mark=mark, cq_tail=tail)
    diff_emit([], prev, 0)
    step = 0
    while stack:
        insn = ARCH.disassemble(pc)[0]["asm"].split()
        mn = insn[0] if insn else ""
        if mn in ("bnd", "notrack") and len(insn) > 1:
            mn = insn[1]
        cur_real = real_start(pc)
        gdb.execute("stepi", to_string=True)
        step += 1
        npc = reg("pc")
        top = stack[-1]
        if mn.startswith("call"):
            kind, name, _ = real_start(npc)
            if kind == "dbg":
                c = chain_at(npc)
                fr = Frame(c[0][0], c[0][1], "real", objfile_of(npc))
            else:
                fr = Frame(name, "?", "nodbg", objfile_of(npc))
            stack.append(fr)
        elif mn.startswith("ret"):
            stack.pop()
        elif mn.startswith("j"):
            nreal = real_start(npc)
            if nreal[0] != cur_real[0] or nreal[1] != cur_real[1]:
                # a jump into another function: a tail call (gcc also
                # makes conditional ones); a PLT stub's jump is no call
                # of its own: the stub is replaced by its target
                dbg = nreal[0] == "dbg"
                if dbg:
                    c = chain_at(npc)
                    name, file = c[0][0], c[0][1]
                else:
                    name, file = nreal[1], "?"
                if top.funcs[-1][0].endswith("@plt"):
                    viatail = top.funcs[-1][2].endswith("tail")
                    kind = ("tail" if viatail else "real") if dbg else \
                        ("nodbg-tail" if viatail else "nodbg")
                    top.funcs[-1] = (name, file, kind, objfile_of(npc))
                else:
                    top.funcs.append((name, file,
                                      "tail" if dbg else "nodbg-tail",
                                      objfile_of(npc)))
        if stack:
            top = stack[-1]
            kind, name, _ = real_start(npc)
            if kind == "dbg":
                set_inl(top, npc)
            else:
                top.inl = []
            if not name.endswith("@plt"):	# a stub: wait for its target
                cur = logical(stack)
                diff_emit(prev, cur, step)
                prev = cur
            # no debug information and not a PLT stub: run to its return
            if kind == "nodbg" and not name.endswith("@plt"):
                sp = reg("sp")
                ret = read_u64(sp)
                bp = gdb.Breakpoint("*0x%x" % ret, internal=True,
                                    temporary=True)
                bp.thread = thread.num
                while True:
                    gdb.execute("continue", to_string=True)
                    if reg("pc") == ret and reg("sp") == sp + 8:
                        break
                    # the same return address deeper (recursion): again
                    bp = gdb.Breakpoint("*0x%x" % ret, internal=True,
                                        temporary=True)
                    bp.thread = thread.num
                stack.pop()
                npc = reg("pc")
                if stack:
                    set_inl(stack[-1], npc)
                cur = logical(stack)
                diff_emit(prev, cur, step)
                prev = cur
        else:
            diff_emit(prev, [], step)
            prev = []
        t = read_u32(ktail)
        if t != tail:
            emit(ev="cq_tail", old=tail, new=t, step=step)
            tail = t
        pc = npc
    emit(ev="end", mark=mark, steps=step)


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("set print thread-events off")
    gdb.execute("set startup-with-shell off")
    gdb.execute("set environment LD_BIND_NOW=1")
    for m in MARKS:
        gdb.Breakpoint("*" + m, internal=True)
    gdb.execute("run", to_string=True)
    done = set()
    while len(done) < len(MARKS):
        pc = reg("pc")
        name = real_start(pc)[1]
        if name not in MARKS or name in done:
            gdb.execute("continue", to_string=True)
            continue
        trace_one(name)
        done.add(name)
        gdb.execute("continue", to_string=True)
    OUT.close()


main()
