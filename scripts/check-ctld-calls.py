#!/usr/bin/env python3
"""check-ctld-calls.py - the controller's files call each other one way.

Builds the call graph of ctld/'s product files (a call to a function
another file defines, found by name; a call through a hook is not a
call) and fails (exit 1) when files form a circle: a strongly connected
group of more than one file, printed with its files. With --edges it
prints every file -> file call and the functions, to find the one to
move. Docs: docs/source-map.md; issue 34 ("the controller's files no
longer form one call circle").
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    "ctld")
DEF = re.compile(r"^[a-z][^\n;#=]*?\b([a-z_][a-z0-9_]*)\s*\([^;{]*?\)\s*\n\{",
                 re.M)
CALL = re.compile(r"\b([a-z_][a-z0-9_]*)\s*\(")


def sources():
    out = {}
    for d, _, files in os.walk(ROOT):
        if "/test" in d:
            continue
        for f in files:
            if f.endswith(".c"):
                path = os.path.join(d, f)
                with open(path) as fp:
                    out[path] = re.sub(r"/\*.*?\*/", "", fp.read(), flags=re.S)
    return out


def graph(src):
    defs = {}
    for f, s in src.items():
        for m in DEF.finditer(s):
            if not s[m.start():m.end()].startswith("static"):
                defs[m.group(1)] = f
    edges = {f: {} for f in src}
    for f, s in src.items():
        for m in CALL.finditer(s):
            g = defs.get(m.group(1))
            if g and g != f:
                edges[f].setdefault(g, set()).add(m.group(1))
    return edges


def circles(edges):
    """Tarjan's strongly connected components of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in edges:
        if v not in index:
            visit(v)
    return out


def main():
    edges = graph(sources())
    rel = lambda p: os.path.relpath(p, ROOT)  # noqa: E731
    if "--edges" in sys.argv:
        for f in sorted(edges):
            for g, fns in sorted(edges[f].items()):
                print("%s -> %s: %s" % (rel(f), rel(g), " ".join(sorted(fns))))
        return 0
    found = circles(edges)
    for comp in found:
        print("ctld files calling each other in a circle: %s"
              % " ".join(rel(f) for f in comp))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
