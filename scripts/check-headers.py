#!/usr/bin/env python3
"""check-headers.py - a header declares one module's functions.

For every product header, finds which .c files define the functions it
declares (by name; static functions do not count) and fails (exit 1)
when they are more than one, unless the header says at its top that it
is the interface of "one module in N files" (a module split for size,
conn.h). Prints each offending header and its files.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEF = re.compile(r"^[a-z][^\n;#]*?\b([a-z_][a-z0-9_]*)\s*\(([^;{]*?)\)\s*\n\{",
                 re.M)
PROTO = re.compile(r"^[a-z][^\n;#{}]*?\b([a-z_][a-z0-9_]*)\s*\(([^;{}]*?)\)\s*;",
                   re.M)


def product_files():
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"],
                         cwd=ROOT, stdout=subprocess.PIPE, check=True)
    return [f for f in out.stdout.decode().split()
            if os.path.exists(os.path.join(ROOT, f)) and "/test/" not in f
            and not f.startswith(("test/", "bench/"))]


def read(f):
    with open(os.path.join(ROOT, f), errors="replace") as fp:
        return fp.read()


def main():
    files = product_files()
    defs = {}
    for c in (f for f in files if f.endswith(".c")):
        s = read(c)
        for m in DEF.finditer(s):
            if not s[m.start():m.end()].startswith("static"):
                defs.setdefault(m.group(1), set()).add(c)
    bad = 0
    for h in sorted(f for f in files if f.endswith(".h")):
        s = read(h)
        mods = set()
        for m in PROTO.finditer(s):
            if not s[m.start():m.end()].startswith(("typedef", "return")):
                mods |= defs.get(m.group(1), set())
        if len(mods) > 1 and not re.search(r"one module in \w+ files",
                                           s[:2000]):
            bad += 1
            print("%s declares the functions of %s" % (h, ", ".join(sorted(mods))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
