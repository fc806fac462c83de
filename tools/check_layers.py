#!/usr/bin/env python3
"""Checks that kqcd's files include only the layers below their own, and that no includes form a cycle.

Usage: tools/check_layers.py [SOURCE_DIR]    (default: the checkout this script is in)

A layer is a folder, include/kqcd/<layer>/ (arch: arch/kqcd/arch/). Arrows point down only:

    arch <- core <- fields <- comm           halos and reductions
                    fields <- kernels        device functors, no launches
    comm, kernels <- io                      gauge files (their header checks run kernels' observables)
    comm, kernels <- stencil                 the hopping term, the Wilson-type operators, layouts
    comm <- linalg                           BLAS on spinors and blocks of them
    io, kernels <- gauge                     observables, smearing, flow, heat bath, gauge files
    stencil, linalg <- solvers               Krylov solvers, the propagator solve
    solvers <- multigrid                     aggregation, transfer, coarse operators
    solvers, gauge <- measure                sources, quark smearing, contractions

A file may include <kqcd/X/...> only where X is its own layer or in its layer's entry of BELOW
(which also names instances, the extern templates that cmake/kqcd_instances.cmake generates for
stencil's operators; <kqcd/build_info.hpp> is in no layer and open to all). The compiled part
follows the same rules: src/<layer>/ (src/io/) is that layer, the other files of src/ are core
unless SRC_LAYER names the layer whose rules their includes follow.

Every cycle of includes among these files (<kqcd/...> headers of include/ and arch/, and "..."
includes of files beside the includer) is a violation too, within a layer or across layers. A
cycle prints as FILE:LINE -> FILE:LINE -> ... -> FILE, each line the include of the next file.

Prints every violation and exits 1 if there is one.
"""
import argparse
import collections
import pathlib
import re
import sys

BELOW = {
    "arch": set(),
    "core": {"arch"},
    "fields": {"arch", "core"},
    "comm": {"arch", "core", "fields"},
    "io": {"arch", "core", "fields", "comm", "kernels"},
    "kernels": {"arch", "core", "fields"},
    "stencil": {"arch", "core", "fields", "comm", "kernels", "instances"},
    "linalg": {"arch", "core", "fields", "comm"},
    "gauge": {"arch", "core", "fields", "comm", "io", "kernels"},
    "solvers": {"arch", "core", "fields", "comm", "kernels", "stencil", "linalg"},
    "multigrid": {"arch", "core", "fields", "comm", "kernels", "stencil", "linalg", "solvers"},
    "measure": {"arch", "core", "fields", "comm", "io", "kernels", "stencil", "linalg", "gauge", "solvers", "multigrid"},
}
# Files at the top of src/ that are not core, and why.
SRC_LAYER = {
    "parse.cpp": "comm",  # parse_grid (comm/process_grid.hpp) besides core's parse_lattice, parse_boundary_phases
    "tune_cache.cpp": "io",  # core's tune cache, saved with io's write_file_atomically
}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
LAYER_OF_INCLUDE = re.compile(r"kqcd/([A-Za-z_]+)/")
SOURCE_SUFFIXES = (".hpp", ".cpp")


def files(source):
    """(path, layer) of every file checked: the layer its folder names (maybe not one of BELOW's)."""
    for top in ("include/kqcd", "arch/kqcd"):
        base = source / top
        for path in sorted(base.rglob("*.hpp")):
            yield path, path.relative_to(base).parts[0]
    src = source / "src"
    for path in sorted(p for p in src.rglob("*") if p.suffix in SOURCE_SUFFIXES):
        parts = path.relative_to(src).parts
        yield path, parts[0] if len(parts) > 1 else SRC_LAYER.get(parts[0], "core")


def includes(path):
    """(line number, '<' or '"', included name) of each #include of path."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = INCLUDE.match(line)
        if m:
            yield number, m.group(1), m.group(2)


def resolve(source, path, bracket, name):
    """The file of the source tree an include names, or None (system and generated headers)."""
    candidates = [] if bracket == "<" else [path.parent / name]
    if name.startswith("kqcd/"):
        candidates += [source / "include" / name, source / "arch" / name]
    return next((c.resolve() for c in candidates if c.is_file()), None)


def cycles(graph):
    """One cycle per strongly connected component of graph {file: {included file: line}} that has
    one: a list of (file, line of its include of the next), and the component's other files."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def connect(v):  # Tarjan's algorithm; include depth is small, so recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            connect(v)
    for component in sorted(components, key=min):
        start = min(component)
        # Shortest way back to start inside the component (breadth first).
        previous, queue = {}, collections.deque([start])
        while queue:
            v = queue.popleft()
            if start in graph[v]:
                break
            for w in sorted(graph[v]):
                if w in component and w not in previous and w != start:
                    previous[w] = v
                    queue.append(w)
        path = [v]
        while path[-1] != start:
            path.append(previous[path[-1]])
        path.reverse()
        steps = [(a, graph[a][b]) for a, b in zip(path, path[1:] + [start])]
        yield steps, sorted(component - set(path))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    source = parser.parse_args().source.resolve()
    checked, bad, graph = 0, [], {}
    for path, layer in files(source):
        name = path.relative_to(source)
        if layer in BELOW:
            checked += 1
        else:
            bad.append(f"{name}: folder '{layer}' is not a known layer ({', '.join(BELOW)})")
        graph[path] = {}
        for number, bracket, included in includes(path):
            m = LAYER_OF_INCLUDE.match(included)
            if layer in BELOW and m and m.group(1) != layer and m.group(1) not in BELOW[layer]:
                allowed = ", ".join(f"kqcd/{b}/" for b in sorted(BELOW[layer])) or "nothing outside kqcd/arch/"
                what = "a layer above" if m.group(1) in BELOW else "not a layer below"
                bad.append(f"{name}:{number}: includes kqcd/{m.group(1)}/, {what} {layer}/ "
                           f"(files of {layer}/ may include {allowed})")
            target = resolve(source, path, bracket, included)
            if target is not None:
                graph[path].setdefault(target, number)
    if checked == 0:
        sys.exit(f"{source}: no headers under include/kqcd or arch/kqcd")
    # Files outside the checked folders (none today) end a path; they cannot close a cycle here.
    graph = {v: {w: line for w, line in edges.items() if w in graph} for v, edges in graph.items()}
    for steps, others in cycles(graph):
        chain = " -> ".join(f"{v.relative_to(source)}:{line}" for v, line in steps)
        also = f" (with {', '.join(str(v.relative_to(source)) for v in others)} in further cycles)" if others else ""
        bad.append(f"include cycle: {chain} -> {steps[0][0].relative_to(source)}{also}")
    for b in bad:
        print(b)
    print(f"{checked} files checked, {len(bad)} layer violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
