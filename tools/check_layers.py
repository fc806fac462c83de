#!/usr/bin/env python3
"""Checks that kqcd's headers include only the layers below their own.

Usage: tools/check_layers.py [SOURCE_DIR]    (default: the checkout this script is in)

Layers point down only: arch <- core <- fields <- {comm <- io, kernels} <- {stencil, linalg, gauge}
<- solvers <- measure (stencil: the hopping term and the operators; linalg: BLAS; gauge: gauge
tools, which use io; measure: sources, quark smearing, contractions). A header in
include/kqcd/<layer>/ or arch/kqcd/arch/ may include <kqcd/X/...> only for X in its layer's list
below. Prints every offending include as file:line and exits 1 if there is one.
"""
import argparse
import pathlib
import re
import sys

BELOW = {
    "arch": set(),
    "core": {"arch"},
    "fields": {"arch", "core"},
    "comm": {"arch", "core", "fields"},
    "io": {"arch", "core", "fields", "comm"},
    "kernels": {"arch", "core", "fields"},
    "stencil": {"arch", "core", "fields", "comm", "kernels", "instances"},
    "linalg": {"arch", "core", "fields", "comm"},
    "gauge": {"arch", "core", "fields", "comm", "io", "kernels"},
    "solvers": {"arch", "core", "fields", "comm", "kernels", "stencil", "linalg"},
    "measure": {"arch", "core", "fields", "comm", "io", "kernels", "stencil", "linalg", "gauge", "solvers"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]kqcd/([A-Za-z_]+)/')


def headers(source):
    for top in ("include/kqcd", "arch/kqcd"):
        base = source / top
        for path in sorted(base.rglob("*.hpp")):
            yield path, path.relative_to(base).parts[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    source = parser.parse_args().source
    checked, bad = 0, []
    for path, layer in headers(source):
        if layer not in BELOW:
            bad.append(f"{path.relative_to(source)}: folder '{layer}' is not a known layer ({', '.join(BELOW)})")
            continue
        checked += 1
        for number, line in enumerate(path.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) != layer and m.group(1) not in BELOW[layer]:
                allowed = ", ".join(f"kqcd/{b}/" for b in sorted(BELOW[layer])) or "nothing outside kqcd/arch/"
                bad.append(f"{path.relative_to(source)}:{number}: includes kqcd/{m.group(1)}/, a layer above {layer}/ "
                           f"(headers in {layer}/ may include {allowed})")
    if checked == 0:
        sys.exit(f"{source}: no headers under include/kqcd or arch/kqcd")
    for b in bad:
        print(b)
    print(f"{checked} headers checked, {len(bad)} layer violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
