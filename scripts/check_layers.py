#!/usr/bin/env python3
"""Fails on an #include of the product (pkg/, cmd/) that points up the layer order of docs/architecture.md.

The table there ("| layer | folders | ...") is the one source: each row gives a layer number and the folders
in it; a file takes the layer of its closest listed folder. A file may include its own layer and those below.
Prints each offending include as file:line and exits 1; exits 0 when there is none.

    scripts/check_layers.py            # from anywhere in the repository
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def read_layers():
    layers = {}
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\|\s*(\d+)\s*\|([^|]*)\|", line)
            if not m:
                continue
            for folder in re.findall(r"`([^`]+)`", m.group(2)):
                layers[folder.rstrip("/")] = int(m.group(1))
    if not layers:
        sys.exit("check_layers: no layer table found in docs/architecture.md")
    return layers


def layer_of(path, layers):
    parts = path.split("/")
    for n in range(len(parts), 0, -1):
        folder = "/".join(parts[:n])
        if folder in layers:
            return layers[folder], folder
    return None, None


def main():
    layers = read_layers()
    include = re.compile(r'\s*#\s*include\s+"((?:pkg|cmd)/[^"]+)"')
    problems = []
    unplaced = set()
    for top in ("pkg", "cmd"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp", ".inc")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), ROOT)
                mine, my_folder = layer_of(path, layers)
                if mine is None:
                    unplaced.add(os.path.dirname(path))
                    continue
                with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = include.match(line)
                        if not m:
                            continue
                        theirs, their_folder = layer_of(m.group(1), layers)
                        if theirs is not None and theirs > mine:
                            problems.append(f"{path}:{number}: includes {m.group(1)} "
                                            f"({their_folder}, layer {theirs}) from {my_folder} (layer {mine})")
    for folder in sorted(unplaced):
        problems.append(f"{folder}: in no layer of docs/architecture.md")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) against the layer order of docs/architecture.md")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
