#!/usr/bin/env python3
"""Plot kqcd benchmark results: GFLOP/s and GB/s against lattice volume.

Reads one or more JSON files written by `kqcd bench ... --out FILE` (the suite, or a single
benchmark's record) and writes one PNG per benchmark (Wilson Dslash, even-odd operator, clover,
...) with two panels, GFLOP/s and GB/s, one line per device, backend and precision. The STREAM
copy bandwidth measured in the same run is drawn as a dashed line on the GB/s panel.
With --markdown, also writes every record of each file as a Markdown table (for RESULTS.md),
headed by the device, commit, Kokkos version, flags and the copy bandwidth of the run.

    benchmarks/plot_results.py cpu.json h200.json --out-dir benchmarks/plots [--markdown tables.md]
"""
import argparse
import json
import os
import sys
from collections import defaultdict


def records_of(doc):
    """The records of a suite document ({results: [...]}) or of a single record."""
    if isinstance(doc, dict) and "results" in doc:
        return doc["results"]
    if isinstance(doc, dict):
        return [doc]
    if isinstance(doc, list):
        return doc
    raise ValueError("not a kqcd benchmark document")


def volume(lattice):
    v = 1
    for extent in lattice:
        v *= extent
    return v


def device_label(rec):
    prov = rec.get("provenance", {})
    device = prov.get("device", "?")
    backend = rec.get("backend", prov.get("backend", "?"))
    threads = prov.get("threads")
    if backend in ("OpenMP", "Serial", "Threads") and threads:
        return f"{device} ({backend}, {threads} thr)"
    return f"{device} ({backend})"


def load(paths):
    groups = defaultdict(lambda: defaultdict(list))  # benchmark -> (device, precision) -> [(V, rec)]
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            sys.exit(f"plot_results.py: cannot read '{path}': {e}")
        try:
            recs = records_of(doc)
        except ValueError as e:
            sys.exit(f"plot_results.py: '{path}': {e}")
        for rec in recs:
            if "gflops" not in rec and "gbytes_per_s" not in rec:
                continue  # solvers' time to solution, gauge algorithms, I/O: not throughput rows
            if "lattice" not in rec or "benchmark" not in rec:
                sys.exit(f"plot_results.py: '{path}': a record lacks 'lattice' or 'benchmark'")
            if rec.get("family", "dslash") == "solver":
                continue
            key = (device_label(rec), rec.get("precision", "?"))
            groups[rec["benchmark"]][key].append((volume(rec["lattice"]), rec))
    return groups


def plot(benchmark, series, out_dir):
    import matplotlib  # here, so that make_results.py can use the parsing without matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_f, ax_b) = plt.subplots(1, 2, figsize=(11, 4.2))
    copies = {}
    for (device, precision), points in sorted(series.items()):
        points.sort(key=lambda p: p[0])
        vols = [p[0] for p in points]
        label = f"{device}, {precision}"
        marker = "o" if precision == "single" else "s"
        gflops = [p[1].get("gflops") for p in points]
        if all(g is not None for g in gflops):
            ax_f.plot(vols, gflops, marker=marker, label=label)
        gbps = [p[1].get("gbytes_per_s") for p in points]
        if all(g is not None for g in gbps):
            ax_b.plot(vols, gbps, marker=marker, label=label)
        copy = [p[1].get("copy_gbytes_per_s") for p in points if p[1].get("copy_gbytes_per_s")]
        if copy:
            copies[device] = max(copy)
    for device, copy in copies.items():
        ax_b.axhline(copy, linestyle="--", linewidth=0.8, color="grey")
        ax_b.annotate(f"copy {copy:.3g} GB/s", xy=(0.01, copy), xycoords=("axes fraction", "data"), fontsize=7,
                      va="bottom", color="grey")
    model = next(iter(next(iter(series.values()))))[1].get("byte_model", "")
    for ax, ylabel in ((ax_f, "GFLOP/s"), (ax_b, f"GB/s ({model} byte model)" if model else "GB/s")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("lattice volume (sites)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", linewidth=0.3)
    ax_f.set_title(f"{benchmark}: GFLOP/s")
    ax_b.set_title(f"{benchmark}: GB/s")
    handles, labels = ax_f.get_legend_handles_labels()
    if not handles:
        handles, labels = ax_b.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    path = os.path.join(out_dir, f"{benchmark}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def seconds(s):
    return f"{s * 1e6:.1f} us" if s < 1e-3 else f"{s * 1e3:.2f} ms" if s < 1 else f"{s:.2f} s"


def markdown(paths):
    """Every record of each file as one Markdown table per file and backend."""
    out = []
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        recs = records_of(doc)
        copies = doc.get("copy_gbytes_per_s", {}) if isinstance(doc, dict) else {}
        by_backend = defaultdict(list)
        for rec in recs:
            by_backend[rec.get("backend", "?")].append(rec)
        for backend, rows in by_backend.items():
            p = rows[0].get("provenance", {})
            copy = copies.get(backend) if isinstance(copies, dict) else None
            out.append(f"{p.get('device', '?')}, {backend} ({p.get('threads', '?')} threads), kqcd {p.get('kqcd_version', '?')} "
                       f"commit {p.get('git', '?')[:12]}, Kokkos {p.get('kokkos_version', '?')}, {p.get('compiler', '?')}, "
                       f"`{p.get('flags', '?')}`, {p.get('date', '?')}"
                       + (f"; STREAM copy in the same run: {copy:.1f} GB/s" if copy else "") + ".\n")
            out.append("| benchmark | case | lattice | precision | time | GFLOP/s | GB/s | % of copy | other |")
            out.append("|---|---|---|---|---|---|---|---|---|")
            for r in rows:
                lat = "x".join(str(x) for x in r["lattice"])
                if r.get("family") == "solver":
                    t = seconds(r["time_to_solution_s"])
                    other = (f"{r['iterations']} iterations, true residual {r['true_residual']:.1e} ({r['status']}), "
                             f"operator {100 * r['operator_fraction']:.0f}% of the time, gauge: {os.path.basename(r['gauge'])}")
                elif r.get("family") == "io":
                    t = seconds(r["time_per_call_s"])
                    other = f"{r['megabytes']:.1f} MB, write {r['write_mbytes_per_s']:.0f} MB/s, read {r['read_mbytes_per_s']:.0f} MB/s"
                else:
                    t = seconds(r["time_per_call_s"])
                    other = f"{r['msites_per_s']:.3g} Msites/s" if "msites_per_s" in r else ""
                g = f"{r['gflops']:.2f}" if "gflops" in r else "-"
                b = f"{r['gbytes_per_s']:.2f}" if "gbytes_per_s" in r else "-"
                pc = f"{r['percent_of_copy']:.0f}%" if "percent_of_copy" in r else "-"
                out.append(f"| {r.get('benchmark', '?')} | {r.get('case', '')} | {lat} | {r.get('precision', '')} | {t} | {g} | {b} | {pc} | {other} |")
            out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="JSON files from kqcd bench --out")
    ap.add_argument("--out-dir", default="plots", help="folder for the PNG files (created)")
    ap.add_argument("--markdown", help="also write every record as Markdown tables to this file")
    args = ap.parse_args()
    groups = load(args.json)
    if not groups:
        sys.exit("plot_results.py: no record with gflops or gbytes_per_s in the input")
    os.makedirs(args.out_dir, exist_ok=True)
    for benchmark, series in sorted(groups.items()):
        print(plot(benchmark, series, args.out_dir))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(args.json))
        print(args.markdown)


if __name__ == "__main__":
    main()
