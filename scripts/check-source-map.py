#!/usr/bin/env python3
"""check-source-map.py - docs/source-map.md names every product file.

docs/source-map.md is where a new engineer finds which folder and file
holds each behaviour. This fails (exit 1) when a product .c file (not a
test, not bench/) is named nowhere in it, or when it names a file the
tree does not have, so the map cannot drift from the tree unnoticed.
A file is named by its path, or by the tail of its path under the
folder the map's section is about ("serve/serve.c", "conn.c").
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tree():
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"],
                         cwd=ROOT, stdout=subprocess.PIPE, check=True)
    return [f for f in out.stdout.decode().split()
            if os.path.exists(os.path.join(ROOT, f))]


def main():
    with open(os.path.join(ROOT, "docs", "source-map.md")) as f:
        doc = f.read()
    named = set(re.findall(r"`([A-Za-z0-9_./-]+\.(?:c|h|def))`", doc))
    files = tree()
    product = [f for f in files if f.endswith(".c") and "/test/" not in f
               and not f.startswith(("test/", "bench/"))]
    missing = []
    for f in product:
        parts = f.split("/")
        tails = {"/".join(parts[i:]) for i in range(len(parts))}
        if not tails & named:
            missing.append(f)
    bases = {os.path.basename(f) for f in files}
    gone = sorted(n for n in named if os.path.basename(n) not in bases)
    for f in missing:
        print("docs/source-map.md does not name %s" % f)
    for n in gone:
        print("docs/source-map.md names %s, which the tree does not have" % n)
    return 1 if missing or gone else 0


if __name__ == "__main__":
    sys.exit(main())
