#!/usr/bin/env python3
"""Write benchmarks/RESULTS.md from the committed benchmark JSON.

Reads every file in benchmarks/results/ that `kqcd bench ... --out FILE` wrote and
benchmarks/results/peers.json (QUDA's and Grid's figures on the same devices), and writes
benchmarks/RESULTS.md: per device the provenance of kqcd's run, its STREAM copy, kqcd beside the
peer for the same case, and kqcd's current figures per family. Where the JSON holds one case more
than once (several runs, commits or builds of one device), the newest record by provenance date is
the current one. The output is deterministic, so the tables regenerate byte for byte.

    benchmarks/make_results.py            # rewrite RESULTS.md
    benchmarks/make_results.py --check    # exit 1 with a unified diff if RESULTS.md is not what it would write
    benchmarks/make_results.py --plots    # also redraw the plots in benchmarks/plots/ (needs matplotlib)

Every path is relative to this script's folder, so it runs from any working directory.
"""
import argparse
import datetime
import difflib
import glob
import json
import os
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS_DIR = os.path.join(HERE, "results")
PEERS = os.path.join(RESULTS_DIR, "peers.json")
OUT = os.path.join(HERE, "RESULTS.md")
PLOTS_DIR = os.path.join(HERE, "plots")

sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree from the ctest
from plot_results import records_of, seconds, volume  # noqa: E402  (matplotlib is imported only to plot)


def _threads(p):
    return p.get("threads")


# The devices, in the order of RESULTS.md: id (peers.json names devices by it), heading, and whether a
# record's provenance belongs to it. A record no entry claims gets a section of its own.
DEVICES = [
    ("h200", "NVIDIA H200 GPU",
     lambda p: "H200" in p.get("device", "")),
    ("host16-xeon", "16-core Intel Xeon host of the GPU machine (AVX-512)",
     lambda p: "Xeon" in p.get("device", "") and _threads(p) == 16),
    ("xeon-2core", "2-core Intel Xeon development machine (AVX-512)",
     lambda p: "Xeon" in p.get("device", "") and _threads(p) == 2),
    ("epyc-2core", "2-core AMD EPYC development machine (AVX-512)",
     lambda p: "EPYC" in p.get("device", "") and _threads(p) == 2),
]

SHORT = {"h200": "H200", "host16-xeon": "16-core Xeon", "xeon-2core": "2-core Xeon", "epyc-2core": "2-core EPYC"}

OPERATORS = {  # kqcd benchmark (and peers.json case.operator) -> name in the tables, in table order
    "wilson_dslash": "Wilson hopping term, one parity",
    "wilson_eo_operator": "Wilson even-odd operator",
    "clover_dslash": "clover A^-1 H, stored inverse",
    "clover-dynamic_dslash": "clover A^-1 H, inverse in the kernel",
    "twisted_dslash": "twisted mass",
    "twisted-clover_dslash": "twisted clover",
    "staggered_dslash": "naive staggered hopping term, one parity",
    "asqtad_dslash": "improved staggered (asqtad) hopping term: fat and Naik links",
    "hisq_dslash": "improved staggered (HISQ) hopping term: fat and Naik links of the gauge field",
    "laplace_dslash": "covariant Laplacian (4D, a x + H in), one parity",
    "covdev_dslash": "covariant derivative (forward t), one parity",
    "moebius_dslash": "Moebius domain wall, 4D hopping term on every s",
    "moebius_eo_operator": "Moebius domain wall, preconditioned operator",
    "shamir_dslash": "Shamir domain wall, 4D hopping term on every s",
    "shamir_eo_operator": "Shamir domain wall, preconditioned operator",
    "wilson_eo_cg_normal": "CG on the even-odd normal equations",
    "wilson_eo_bicgstab": "BiCGStab on the even-odd operator",
    "staggered_eo_cg": "naive staggered: CG on the even sites",
    "staggered_eo_multi_shift_cg": "naive staggered: multi-shift CG on the even sites",
    "improved-staggered_eo_cg": "improved staggered (random fat and Naik links): CG on the even sites",
    "improved-staggered_eo_multi_shift_cg": "improved staggered (random fat and Naik links): multi-shift CG on the even sites",
    "asqtad_eo_cg": "asqtad: CG on the even sites",
    "asqtad_eo_multi_shift_cg": "asqtad: multi-shift CG on the even sites",
    "hisq_eo_cg": "HISQ: CG on the even sites",
    "hisq_eo_multi_shift_cg": "HISQ: multi-shift CG on the even sites",
    "moebius_eo_cg_normal": "Moebius domain wall: CG on the 4D even-odd normal equations",
    "shamir_eo_cg_normal": "Shamir domain wall: CG on the 4D even-odd normal equations",
}
# What a case adds to its operator's name where one benchmark has several (asqtad_dslash: random fat
# and Naik links, --operator improved-staggered, or asqtad's of the gauge field, --operator asqtad).
CASE_NAMES = {("asqtad_dslash", "asqtad"): "of the gauge field"}
# The domain-wall records: the whole preconditioned operator (<case>_eo_operator) holds under "hop" the
# 4D hopping term over all slices, a row of its own as <case>_dslash.
DOMAIN_WALL = ("shamir", "moebius")
PRECISIONS = ["single", "double", "half", "mixed", "mixed-half"]
FAMILIES = [("dslash", "Dirac operators"), ("solver", "Solvers"), ("contract", "Contractions"),
            ("smear", "Gauge algorithms"), ("flow", "Gauge algorithms"), ("heatbath", "Gauge algorithms"),
            ("io", "Gauge configuration I/O")]
GAUGE_FAMILIES = ("smear", "flow", "heatbath")
# The fields that tell one case from another (a record's figures are everything else).
CASE_FIELDS = ("family", "benchmark", "case", "operator", "solver", "precision", "recon", "rhs", "layout",
               "lattice", "gauge", "kappa", "tol", "csw", "mu", "grid", "block_launch", "format",
               "Ls", "M5", "b5", "c5", "mf", "masses", "mg_levels", "mg_block", "mg_n_vec", "transport")


# ---------------------------------------------------------------------------------------------
# formatting

def num(x):
    """A figure with a fixed number of digits for its size."""
    if x is None:
        return "-"
    ax = abs(x)
    if ax >= 100:
        return f"{x:.0f}"
    if ax >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def ratio(x):
    return f"{x:.2f}"


def pct(x):
    return "-" if x is None else f"{x:.0f}%"


def lat(lattice):
    if len(set(lattice)) == 1:
        return f"{lattice[0]}^{len(lattice)}"
    return "x".join(str(n) for n in lattice)


def commit(p):
    g = p.get("git", "?")
    short = g.split("-")[0][:7]
    return short + ("-dirty" if g.endswith("-dirty") else "")


def opname(name):
    return OPERATORS.get(name, name)


def masses(r):
    """A staggered solver record's quark masses (its "masses" holds each mass's results)."""
    return [m.get("mass") if isinstance(m, dict) else m for m in r.get("masses") or []]


def label(r):
    """A kqcd record's row name: its benchmark's, the case where one benchmark has several, Ls."""
    name = opname(r.get("benchmark"))
    if (r.get("benchmark"), r.get("case")) in CASE_NAMES:
        name += " " + CASE_NAMES[(r.get("benchmark"), r.get("case"))]
    if r.get("Ls") is not None:
        name += f", Ls {r.get('Ls')}"
    return name


def peer_label(c):
    return opname(c["operator"]) + (f", Ls {c['ls']}" if "ls" in c else "")


def flops_of(r):
    """The flops per site a record counts (domain wall: per 5D site)."""
    return r.get("flops_per_site", r.get("flops_per_5d_site"))


def iterations(r):
    """A solver's Krylov iterations (staggered: the shared loops' and each mass's refinement)."""
    return r.get("total_iterations", r.get("iterations"))


def flops_figure(r):
    if r.get("flops_per_5d_site") is not None:
        return f"{num(r.get('flops_per_5d_site'))} per 5D site"
    return num(r.get("flops_per_site"))


def order_key(name, table):
    keys = list(table)
    return (keys.index(name), "") if name in keys else (len(keys), str(name))


def prec_key(p):
    return (PRECISIONS.index(p), "") if p in PRECISIONS else (len(PRECISIONS), str(p))


def when(date):
    """A datetime from a provenance or peers.json date (a day alone counts as its noon, UTC)."""
    if not date:
        return datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    if len(date) == 10:
        date += "T12:00:00Z"
    return datetime.datetime.fromisoformat(date.replace("Z", "+00:00"))


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


# ---------------------------------------------------------------------------------------------
# data

def device_of(prov):
    for dev_id, title, match in DEVICES:
        if match(prov):
            return dev_id
    name = prov.get("device", "unknown device")
    return f"{name} ({prov.get('backend', '?')}, {prov.get('threads', '?')} threads)"


def device_title(dev_id):
    for d, title, _ in DEVICES:
        if d == dev_id:
            return title
    return dev_id


def build_of(prov):
    return (prov.get("backend", "?"), prov.get("compiler", "?"), prov.get("flags", "?"), prov.get("kokkos_version", "?"))


def case_of(rec):
    case = {k: rec.get(k) for k in CASE_FIELDS if k in rec}
    if "masses" in case:
        case["masses"] = masses(rec)
    return json.dumps(case, sort_keys=True)


def with_parts(rec):
    """A record and the records it holds: a domain-wall operator's 4D hopping term over all slices
    ("hop": its time, rates and flops per 5D site) as a <case>_dslash record of the same case."""
    out = [rec]
    hop = rec.get("hop")
    if isinstance(hop, dict) and rec.get("case") in DOMAIN_WALL and str(rec.get("benchmark")).endswith("_eo_operator"):
        part = {k: v for k, v in rec.items() if k not in ("hop", "launch", "percent_of_copy", "phases")}
        part.update(hop)
        part["benchmark"] = f"{rec['case']}_dslash"
        if part.get("gbytes_per_s") is not None and rec.get("copy_gbytes_per_s"):
            part["percent_of_copy"] = 100.0 * part["gbytes_per_s"] / rec["copy_gbytes_per_s"]
        out.append(part)
    return out


class Record:
    def __init__(self, rec, prov, path, index):
        self.rec = rec
        self.prov = prov
        self.file = os.path.relpath(path, HERE)
        self.index = index
        self.device = device_of(prov)
        self.build = build_of(prov)
        self.case = case_of(rec)
        self.when = when(prov.get("date"))

    def get(self, key, default=None):
        return self.rec.get(key, default)


def load_kqcd():
    """Every record of every kqcd JSON file, with the provenance that applies to it."""
    records = []
    for path in sorted(glob.glob(os.path.join(RESULTS_DIR, "*.json"))):
        if os.path.abspath(path) == os.path.abspath(PEERS):
            continue
        with open(path) as f:
            doc = json.load(f)
        top = doc.get("provenance", {}) if isinstance(doc, dict) else {}
        for i, rec in enumerate(records_of(doc)):
            if "benchmark" not in rec or "lattice" not in rec:
                sys.exit(f"make_results.py: {path}: record {i} lacks 'benchmark' or 'lattice'")
            for part in with_parts(rec):
                records.append(Record(part, rec.get("provenance", top), path, i))
    return records


def current(records):
    """The newest record of each (device, build, case)."""
    best = {}
    for r in records:
        key = (r.device, r.build, r.case)
        rank = (r.when, r.prov.get("git", ""), r.file, r.index)
        if key not in best or rank > best[key][0]:
            best[key] = (rank, r)
    return [r for _, r in best.values()]


def load_peers():
    with open(PEERS) as f:
        doc = json.load(f)
    return doc["peers"]


# ---------------------------------------------------------------------------------------------
# kqcd beside the peers

def matches(peer, r):
    c = peer["case"]
    if r.get("family", "dslash") != c["family"] or r.get("benchmark") != c["operator"]:
        return False
    if r.get("precision") != c["precision"] or list(r.get("lattice")) != list(c["lattice"]):
        return False
    if r.get("rhs", 1) != 1 or r.get("ranks", 1) != 1 or r.get("Ls") != c.get("ls"):
        return False
    if "layout" in c and r.get("layout") != c["layout"]:
        return False
    if c["family"] == "dslash":
        return r.get("recon", 18) == c.get("recon", 18)
    if c["family"] == "solver":
        # The mass: Wilson-type kappa, domain wall m_f, staggered the list of masses.
        mass = "mf" if "mf" in c else "masses" if "masses" in c else "kappa"
        mine, theirs = (masses(r), c["masses"]) if mass == "masses" else ([r.get(mass)], [c[mass]])
        if len(mine) != len(theirs):
            return False
        for a, b in zip(mine + [r.get("tol")], theirs + [c["tol"]]):
            if a is None or abs(a - b) > 1e-6 * b:
                return False
        return not c.get("gauge") or str(r.get("gauge", "")).startswith(c["gauge"])
    return False


def pairs(device, recs, peers):
    """(peer name, kqcd record, peer row) for each kqcd case with a peer row of the same case: where
    several kqcd builds have the case, the newest record; where several peer rows match, the one
    measured nearest in time to kqcd's record, the first listed on a tie."""
    out = []
    by_peer = defaultdict(list)
    for p in peers:
        if p["device"] == device:
            by_peer[p["peer"]].append(p)
    for name in sorted(by_peer):
        chosen = {}
        for p in by_peer[name]:
            cands = [r for r in recs if matches(p, r)]
            if not cands:
                continue
            r = max(cands, key=lambda r: (r.when, r.file, r.index))
            dist = abs((when(p["date"]) - r.when).total_seconds())
            if r.case not in chosen or dist < chosen[r.case][0]:
                chosen[r.case] = (dist, r, p)
        for _, r, p in chosen.values():
            out.append((name, r, p))
    out.sort(key=lambda t: (t[0], t[2]["case"]["family"] != "dslash", order_key(t[1].get("benchmark"), OPERATORS),
                            prec_key(t[1].get("precision")), -t[1].get("recon", 18), volume(t[1].get("lattice")),
                            t[1].get("Ls") or 0))
    return out


def peer_when(p):
    return p["date"][:10]


def recounted(r, p):
    """Whether kqcd's record counts other flops per site than the peer's row (domain wall's D_hat:
    kqcd counts its own operator's, QUDA its MatPC's)."""
    mine, theirs = flops_of(r), p.get("flops_per_site")
    return bool(mine and theirs) and abs(mine - theirs) > 1e-6 * theirs


def gflops_by_peer(r, p):
    """kqcd's GFLOP/s by the peer's flop count: the peer's flops of the case over kqcd's time."""
    if recounted(r, p):
        return r.get("gflops") * p["flops_per_site"] / flops_of(r)
    return r.get("gflops")


def headline(device, recs, peers, labels):
    def run(r):
        return commit(r.prov) + (f", {labels[r.build]}" if labels[r.build] else "")

    lines = []
    all_pairs = pairs(device, recs, peers)
    for name in sorted({n for n, _, _ in all_pairs}):
        rows = [(r, p) for n, r, p in all_pairs if n == name]
        dslash = [(r, p) for r, p in rows if p["case"]["family"] == "dslash"]
        solver = [(r, p) for r, p in rows if p["case"]["family"] == "solver"]
        if dslash:
            lines.append(f"kqcd beside {name}, GFLOP/s by the same flop count (above 1: kqcd is faster):")
            lines.append("")
            body = []
            for r, p in dslash:
                mine = gflops_by_peer(r, p)
                body.append([peer_label(p["case"]), p["case"]["precision"], p["case"].get("recon", 18),
                             lat(p["case"]["lattice"]), num(mine), num(p["gflops"]),
                             f"**{ratio(mine / p['gflops'])}**", run(r), peer_when(p)])
            lines += table(["operator", "precision", "recon", "lattice", "kqcd", name, f"kqcd / {name}",
                            "kqcd run", f"{name} measured"], body)
            lines.append("")
            counts = sorted({(peer_label(p["case"]), num(flops_of(r)), num(p["flops_per_site"]))
                             for r, p in dslash if recounted(r, p)})
            if counts:
                lines.append(f"Counted by {name}'s flops per site where kqcd's record counts its own (kqcd / {name} is "
                             f"then {name}'s time per call over kqcd's): " +
                             "; ".join(f"{op}: kqcd {mine}, {name} {theirs}" for op, mine, theirs in counts) + ".")
                lines.append("")
        if solver:
            lines.append(f"Solvers beside {name}: time to solution and per iteration (the iteration counts differ "
                         f"where the random gauge fields and stopping tests do; the ratio is {name}'s time per "
                         "iteration over kqcd's, above 1: kqcd is faster):")
            lines.append("")
            body = []
            for r, p in solver:
                kt, pt = r.get("time_to_solution_s"), p["time_to_solution_s"]
                ki, pi = iterations(r), p["iterations"]
                body.append([peer_label(p["case"]), p["case"]["precision"], lat(p["case"]["lattice"]),
                             f"{ki}, {seconds(kt)}, {seconds(kt / ki)}", f"{num(pi) if pi != int(pi) else int(pi)}, "
                             f"{seconds(pt)}, {seconds(pt / pi)}", f"**{ratio((pt / pi) / (kt / ki))}**",
                             run(r), peer_when(p)])
            lines += table(["solver", "precision", "lattice", "kqcd: iterations, time, per iteration",
                            f"{name}: iterations, time, per iteration", f"{name} / kqcd per iteration",
                            "kqcd run", f"{name} measured"], body)
            lines.append("")
    return lines, all_pairs


def peer_table(device, peers):
    rows = [p for p in peers if p["device"] == device]
    if not rows:
        return []
    rows.sort(key=lambda p: (p["peer"], p["case"]["family"] != "dslash", order_key(p["case"]["operator"], OPERATORS),
                             prec_key(p["case"]["precision"]), -p["case"].get("recon", 18), volume(p["case"]["lattice"]),
                             p["date"], p["case"].get("ls", 0)))
    body = []
    tests = {}
    for p in rows:
        c = p["case"]
        what = opname(c["operator"])
        if "ls" in c:
            what += f", Ls {c['ls']}"
        if c["family"] == "solver":
            if "kappa" in c:
                what += f", kappa {c['kappa']:g}"
            if "mf" in c:
                what += f", m_f {c['mf']:g}"
            if "masses" in c:
                what += f", mass{'es' if len(c['masses']) > 1 else ''} " + ", ".join(f"{x:g}" for x in c["masses"])
            what += f", tol {c['tol']:g}"
            figure = f"{seconds(p['time_to_solution_s'])}, {p['iterations']:g} iterations"
            if p.get("gflops"):
                figure += f", {num(p['gflops'])} GFLOP/s"
        else:
            figure = f"{num(p['gflops'])} GFLOP/s"
            if p.get("time_per_call_s"):
                figure += f", {seconds(p['time_per_call_s'])} per call"
        test = tests.setdefault((p["peer"], p["version"], p["date"][:10], p["source"], p["test"]), len(tests) + 1)
        body.append([p["peer"], what, c["precision"], c.get("recon", "-"), lat(c["lattice"]), p.get("flops_per_site", "-"),
                     figure, peer_when(p), f"[{test}]" + (f" {p['note']}" if p.get("note") else "")])
    lines = table(["peer", "case", "precision", "recon", "lattice", "flops per site", "figure", "measured",
                   "test, note"], body)
    lines.append("")
    for (peer, version, date, source, test), n in tests.items():
        lines.append(f"{n}. {peer}: {test}; {date}; {version}. Source: {source}.")
    return lines


# ---------------------------------------------------------------------------------------------
# kqcd's tables

def copy_figure(recs):
    copies = sorted({round(r.get("copy_gbytes_per_s"), 1) for r in recs if r.get("copy_gbytes_per_s")})
    if not copies:
        return "-"
    if len(copies) == 1:
        return f"{copies[0]:.1f} GB/s"
    return f"{copies[0]:.1f}-{copies[-1]:.1f} GB/s"


def provenance_lines(builds):
    lines = []
    for label, recs in builds:
        p = recs[0].prov
        dates = sorted(r.prov.get("date", "") for r in recs)
        span = dates[0][:16].replace("T", " ")
        if dates[-1][:16] == dates[0][:16]:
            span += " UTC"
        elif dates[-1][:10] == dates[0][:10]:
            span += f"-{dates[-1][11:16]} UTC"
        else:
            span += f" to {dates[-1][:16].replace('T', ' ')} UTC"
        commits = sorted({commit(r.prov) for r in recs})
        files = sorted({r.file for r in recs})
        head = f"- {label}: " if label else "- "
        backend = p.get("backend", "?")
        threads = f"{p.get('threads', '?')} {'host threads' if backend == 'Cuda' else 'threads'}"
        if backend != "Cuda" and "nvcc" in p.get("flags", ""):
            threads += "; the OpenMP backend of the CUDA build, host code compiled by nvcc, where kqcd's SIMD types use portable lanes"
        lines.append(f"{head}{p.get('device', '?')}, {backend} ({threads}); "
                     f"kqcd {p.get('kqcd_version', '?')}, commit {', '.join(commits)}; Kokkos {p.get('kokkos_version', '?')}; "
                     f"{p.get('compiler', '?')}, `{p.get('flags', '?')}`; {span}; "
                     f"STREAM copy in the same run: {copy_figure(recs)}; `{'`, `'.join(files)}`.")
    return lines


def dslash_table(recs, extra):
    show_rhs = any(r.get("rhs", 1) != 1 for r in recs)
    show_layout = any(r.get("layout") for r in recs)
    header = ["operator", "flops per site", "precision", "recon"] + (["RHS"] if show_rhs else []) + \
        (["layout"] if show_layout else []) + ["lattice", "time per call", "GFLOP/s", "GB/s", "% of copy"] + \
        [h for h, _ in extra]
    recs = sorted(recs, key=lambda r: (order_key(r.get("benchmark"), OPERATORS),
                                       CASE_NAMES.get((r.get("benchmark"), r.get("case")), ""), r.get("Ls") or 0,
                                       prec_key(r.get("precision")), -(r.get("recon") or 18), r.get("rhs", 1),
                                       str(r.get("layout")), volume(r.get("lattice")), [f(r) for _, f in extra]))
    body = []
    for r in recs:
        row = [label(r), flops_figure(r), r.get("precision", "-"), r.get("recon", "-")]
        row += [r.get("rhs", 1)] if show_rhs else []
        row += [r.get("layout") or "-"] if show_layout else []
        row += [lat(r.get("lattice")), seconds(r.get("time_per_call_s")), num(r.get("gflops")), num(r.get("gbytes_per_s")),
                pct(r.get("percent_of_copy"))]
        row += [f(r) for _, f in extra]
        body.append(row)
    lines = table(header, body)
    models = sorted({r.get("byte_model") for r in recs if r.get("byte_model")})
    if models:
        lines += ["", "Byte models: " + "; ".join(models) + "."]
    if any(r.get("fat_recon") and r.get("recon") != r.get("fat_recon") for r in recs):
        lines += ["", "Improved staggered rows: recon is the long links' (13 and 9: a constant times U(3), as "
                      "QUDA's); the fat links are stored whole."]
    if any(r.get("flops_per_5d_site") is not None for r in recs):
        lines += ["", "Domain-wall rows: flops per 5D site (the even 4D sites times Ls), the preconditioned "
                      "operator D_hat by kqcd's count (docs/operators/domain-wall.md), the 4D hopping term on every s "
                      "by the Wilson count, 1320."]
    return lines


def solver_table(recs, extra):
    # A layout column where a device's solvers ran on more than one (the SIMD lanes beside the plain layout).
    layouts = {r.get("layout") for r in recs if r.get("layout")}
    if len(layouts) > 1:
        extra = [("layout", lambda r: r.get("layout", "-"))] + list(extra)
    header = ["solver", "precision", "gauge field", "lattice", "kappa", "tol", "iterations", "true residual",
              "time to solution", "per iteration", "operator share", "GFLOP/s"] + [h for h, _ in extra]
    recs = sorted(recs, key=lambda r: (order_key(r.get("benchmark"), OPERATORS), r.get("Ls") or 0, r.get("mf") or 0,
                                       masses(r), str(r.get("gauge")), prec_key(r.get("precision")),
                                       volume(r.get("lattice")), [f(r) for _, f in extra]))
    body = []
    for r in recs:
        gauge = os.path.basename(str(r.get("gauge", "-")))
        it = iterations(r)
        t = r.get("time_to_solution_s")
        what = label(r)
        if r.get("mf") is not None:
            what += f", m_f {r.get('mf'):g}"
        if masses(r):
            what += f", mass{'es' if len(masses(r)) > 1 else ''} " + ", ".join(f"{m:g}" for m in masses(r))
        residuals = [m["true_residual"] for m in r.get("masses") or [] if isinstance(m, dict) and "true_residual" in m]
        residual = r.get("true_residual", max(residuals) if residuals else None)
        body.append([what, r.get("precision", "-"), gauge, lat(r.get("lattice")),
                     f"{r.get('kappa'):g}" if r.get("kappa") is not None else "-",
                     f"{r.get('tol'):g}" if r.get("tol") is not None else "-", it if it is not None else "-",
                     f"{residual:.1e}" if residual is not None else "-",
                     seconds(t) if t is not None else "-", seconds(t / it) if t and it else "-",
                     pct(100 * r.get("operator_fraction")) if r.get("operator_fraction") is not None else "-",
                     num(r.get("gflops"))] + [f(r) for _, f in extra])
    lines = table(header, body)
    notes = sorted({r.get("flops_note") for r in recs if r.get("flops_note")})
    if notes:
        lines += ["", "GFLOP/s: operator flops over the time to solution, " + "; ".join(notes) + "."]
    return lines


def multigrid_table(recs, extra):
    """Multigrid GCR on the even-odd system beside kqcd's best Krylov solver on the same system."""
    header = ["operator", "precision", "gauge field", "lattice", "kappa", "levels, blocks, vectors", "iterations (coarse per solve)",
              "setup", "time to solution", "best Krylov: iterations, time", "speedup", "12 solves with setup"]
    header += [h for h, _ in extra]
    body = []
    for r in sorted(recs, key=lambda r: (r.get("operator"), str(r.get("gauge")), volume(r.get("lattice")), r.get("kappa"),
                                         prec_key(r.get("precision")), r.get("mg_levels", 2))):
        what = r.get("operator", "-") + (f", c_sw {r.get('csw'):g}" if r.get("csw") is not None else "")
        best = r.get("best_krylov")
        k = (r.get("krylov") or {}).get(best, {}) if best else {}
        krylov = f"{best} {k.get('iterations')}, {seconds(k.get('time_to_solution_s'))}" if k else "-"
        block = f"{r.get('mg_levels', 2)}, " + "x".join(str(b) for b in r.get("mg_block", [])) + f", {r.get('mg_n_vec')}"
        body.append([what, r.get("precision", "-"), os.path.basename(str(r.get("gauge", "-"))), lat(r.get("lattice")),
                     f"{r.get('kappa'):g}", block, f"{r.get('iterations')} ({(r.get('iterations_per_level') or ['-'])[0]})",
                     seconds(r.get("setup_s")), seconds(r.get("time_to_solution_s")), krylov,
                     ratio(r.get("speedup_over_krylov")) if r.get("speedup_over_krylov") else "-",
                     ratio(r.get("speedup_over_krylov_12_solves_with_setup"))
                     if r.get("speedup_over_krylov_12_solves_with_setup") else "-"] + [f(r) for _, f in extra])
    return table(header, body)


def contract_table(recs, extra):
    recs = sorted(recs, key=lambda r: (r.get("benchmark"), str(r.get("case")), prec_key(r.get("precision")),
                                       volume(r.get("lattice")), [f(r) for _, f in extra]))
    body = [[r.get("benchmark"), r.get("case", "-"), r.get("precision", "-"), lat(r.get("lattice")),
             seconds(r.get("time_per_call_s")), num(r.get("gbytes_per_s")), pct(r.get("percent_of_copy")),
             num(r.get("msites_per_s"))] + [f(r) for _, f in extra] for r in recs]
    lines = table(["benchmark", "case", "precision", "lattice", "time per call", "GB/s", "% of copy", "Msites/s"]
                  + [h for h, _ in extra], body)
    models = sorted({r.get("byte_model") for r in recs if r.get("byte_model")})
    if models:
        lines += ["", "Byte model: " + "; ".join(models) + "."]
    return lines


def gauge_table(recs, extra):
    recs = sorted(recs, key=lambda r: ([f for f, _ in FAMILIES].index(r.get("family")), r.get("benchmark"),
                                       prec_key(r.get("precision")), volume(r.get("lattice")), [f(r) for _, f in extra]))
    body = [[r.get("benchmark"), r.get("note", "-"), r.get("precision", "-"), lat(r.get("lattice")),
             seconds(r.get("time_per_call_s")), num(r.get("msites_per_s"))] + [f(r) for _, f in extra] for r in recs]
    return table(["benchmark", "what one call does", "precision", "lattice", "time per call", "Msites/s"]
                 + [h for h, _ in extra], body)


def io_table(recs, extra):
    recs = sorted(recs, key=lambda r: (r.get("benchmark"), volume(r.get("lattice")), [f(r) for _, f in extra]))
    body = [[r.get("benchmark"), r.get("case", "-"), r.get("precision", "-"), lat(r.get("lattice")), num(r.get("megabytes")),
             num(r.get("write_mbytes_per_s")), num(r.get("read_mbytes_per_s"))] + [f(r) for _, f in extra] for r in recs]
    return table(["benchmark", "format", "precision", "lattice", "MB", "write MB/s", "read MB/s"]
                 + [h for h, _ in extra], body)


def other_table(recs, extra):
    recs = sorted(recs, key=lambda r: (r.get("family", ""), r.get("benchmark"), prec_key(r.get("precision")),
                                       volume(r.get("lattice")), [f(r) for _, f in extra]))
    body = [[r.get("family", "-"), r.get("benchmark"), r.get("case", "-"), r.get("precision", "-"), lat(r.get("lattice")),
             seconds(r.get("time_per_call_s")) if r.get("time_per_call_s") else "-", num(r.get("gflops")),
             num(r.get("gbytes_per_s"))] + [f(r) for _, f in extra] for r in recs]
    return table(["family", "benchmark", "case", "precision", "lattice", "time per call", "GFLOP/s", "GB/s"]
                 + [h for h, _ in extra], body)


def scaling_table(recs, extra):
    """Records on several ranks (GPUs) beside the one-rank record of the same case on the same
    device: strong scaling against the same global lattice, weak scaling against the rank's local
    lattice. Dslash: GFLOP/s; solvers: time to solution."""
    def case(r):
        return (r.get("family", "dslash"), r.get("benchmark"), r.get("precision"), r.get("recon", 18), r.get("rhs", 1),
                r.get("kappa"), r.get("tol"))

    single = {}
    for r in recs:
        if r.get("ranks", 1) == 1:
            single[case(r) + (tuple(r.get("lattice") or ()),)] = r
    def global_sum(r):
        g = r.get("global_sum_us") or {}
        return " / ".join(f"{g[k]:.1f}" if k in g else "-" for k in ("mpi", "nccl")) if g else "-"

    header = ["benchmark", "precision", "recon", "lattice", "grid", "transport", "GFLOP/s or time", "one GPU",
              "strong speedup", "weak efficiency", "global sum MPI / NCCL (us)"] + [h for h, _ in extra]
    body = []
    multi = sorted((r for r in recs if r.get("ranks", 1) > 1),
                   key=lambda r: (r.get("family", "dslash"), r.get("benchmark"), prec_key(r.get("precision")),
                                  volume(r.get("lattice")), r.get("ranks")))
    for r in multi:
        grid = r.get("grid") or [1, 1, 1, 1]
        local = tuple(l // g for l, g in zip(r.get("lattice"), grid))
        strong = single.get(case(r) + (tuple(r.get("lattice")),))
        weak = single.get(case(r) + (local,))
        if r.get("family", "dslash") == "solver":
            value, speed = r.get("time_to_solution_s"), lambda b: b.get("time_to_solution_s") / r.get("time_to_solution_s")
            shown = seconds(value) if value else "-"
            base = seconds(strong.get("time_to_solution_s")) if strong else "-"
            eff = "-"
            if weak and value:
                eff = pct(100 * weak.get("time_to_solution_s") / value)
        else:
            value, speed = r.get("gflops"), lambda b: r.get("gflops") / b.get("gflops")
            shown = num(value)
            base = num(strong.get("gflops")) if strong else "-"
            eff = pct(100 * value / (r.get("ranks") * weak.get("gflops"))) if weak and value else "-"
        body.append([label(r), r.get("precision", "-"), r.get("recon", "-"), lat(r.get("lattice")),
                     "x".join(str(g) for g in grid), r.get("transport", "-"), shown, base,
                     f"{speed(strong):.2f}x" if strong and value else "-", eff, global_sum(r)] + [f(r) for _, f in extra])
    return table(header, body)


def family_tables(recs, build_label):
    """kqcd's current figures of one device, a table per family."""
    extra = []
    if len({r.build for r in recs}) > 1:
        extra.append(("build", lambda r: build_label[r.build]))
    if len({commit(r.prov) for r in recs}) > 1:
        extra.append(("commit", lambda r: commit(r.prov)))
    fam = defaultdict(list)
    known = {f for f, _ in FAMILIES}
    for r in recs:
        f = r.get("family", "dslash")
        if r.get("ranks", 1) > 1 and f in ("dslash", "solver"):
            f = "several"
        fam[f if f in known or f == "several" else "other"].append(r)
    lines = []
    if fam["dslash"]:
        lines += ["#### Dirac operators", ""] + dslash_table(fam["dslash"], extra) + [""]
    mg = [r for r in fam["solver"] if str(r.get("benchmark", "")).endswith("_mg_gcr")]
    krylov = [r for r in fam["solver"] if r not in mg]
    if krylov:
        lines += ["#### Solvers", ""] + solver_table(krylov, extra) + [""]
    if mg:
        lines += ["#### Multigrid", "", "Multigrid GCR on the even-odd system (the cycle smoothing on the Schur "
                  "complement; three levels: the K-cycle) beside the faster of kqcd's BiCGStab and CG on the normal "
                  "equations on the same system, source and layout (scalar: multigrid does not run on the SIMD lanes yet, "
                  "the Krylov solvers on them are under Solvers), in the same precision (mixed: the cycle and the Krylov "
                  "inner iterations in single); time to solution without the setup; speedup the Krylov time over "
                  "multigrid's, for one solve and for the 12 solves of a propagator with the setup once; coarse "
                  "iterations those of the first coarse level.", ""] + multigrid_table(mg, extra) + [""]
    if fam["several"]:
        lines += ["#### Several GPUs", "", "Each rank on its own GPU of one node; strong scaling against one GPU on the "
                  "same global lattice, weak scaling (efficiency: the rate over the ranks times one GPU's on the rank's "
                  "local lattice; solvers: one GPU's time over the several's) against one GPU on a rank's share. Global sum: "
                  "one dot product's global sum of a parity's spinor in device memory, reduced to the host and summed by "
                  "MPI, or reduced on the GPU and summed by NCCL's all-reduce (bench dslash).",
                  ""] + scaling_table(fam["several"] + [r for r in recs if r.get("ranks", 1) == 1], extra) + [""]
    if fam["contract"]:
        lines += ["#### Contractions", ""] + contract_table(fam["contract"], extra) + [""]
    gauge = [r for f in GAUGE_FAMILIES for r in fam[f]]
    if gauge:
        lines += ["#### Smearing, gradient flow and heat bath", ""] + gauge_table(gauge, extra) + [""]
    if fam["io"]:
        lines += ["#### Gauge configuration I/O", ""] + io_table(fam["io"], extra) + [""]
    if fam["other"]:
        lines += ["#### Other benchmarks", ""] + other_table(fam["other"], extra) + [""]
    return lines


# ---------------------------------------------------------------------------------------------
# the document

INTRO = """\
# kqcd benchmark results

kqcd's current figures on each device it was measured on, beside the peer code measured on the same
device: QUDA on the H200, Grid on the CPUs. Every row comes from the JSON that `kqcd bench` writes
(`benchmarks/results/*.json`, with the device, commit, Kokkos version, compiler, flags and date of
each record) and from `benchmarks/results/peers.json` (the peers' figures, with their versions,
dates and sources). This file is generated by `benchmarks/make_results.py`: edit the JSON or the
script, not this file.

How to read the figures:
- **GFLOP/s** count flops per output site, the field's usual counts (`../shared/docs/conventions.md`,
  "Counting work"): Wilson hopping term on one parity 1320; even-odd operator 2688 per even site
  (QUDA's MatPC count); the clover, twisted-mass and twisted-clover rows are the hopping term on one
  parity followed by the site-local term of the preconditioned operator (clover: A^-1 H), by QUDA's
  count for its "Dslash" test (clover and twisted clover 1872, twisted mass 1368). Solvers:
  operator flops over the time to solution.
- **GB/s** use the **no-reuse** byte model: 8 links (18, 12 or 8 reals with gauge compression), 8
  neighbour spinors and 1 output spinor per site, at the stored word size; the perfect-reuse model
  (8 links, 1 input and 1 output spinor) is the lower bound on the traffic. Each table names the
  model its records report.
- **% of copy** is GB/s over a STREAM-style copy that `kqcd bench` measures in the same run on the
  same device. Where caches serve the neighbour spinors it exceeds 100%: it is a floor on the
  achieved bandwidth, not a goal.
- **kqcd / peer** compares the same case: operator, precision, gauge reconstruction and lattice
  (solvers: kappa, tolerance and random gauge field as well). Above 1 kqcd is faster.
"""

METHOD = """\
## Method

`kqcd bench` runs a case list: for each backend and lattice the Dslash of every operator in each
precision, CG and BiCGStab to a true residual of 1e-10 (double, and mixed: single-precision inner
iterations with double reliable updates) on a random gauge field (kappa 0.12) and on
`../shared/data/milc-l8888-b6.0.milc`, meson contractions, smearing, gradient flow, the heat bath
and gauge I/O. A STREAM copy per backend runs first (two arrays of 512 MiB, past every cache). CUDA
kernels are autotuned (`launch` in the JSON is the tuned shape). Layout: `simd` is the CPU's
virtual-node layout (AVX-512 lanes, used where the lattice splits into them), `scalar` the plain
one; records that do not name a layout ran on the plain one.

Reproduce and add a device:
```sh
# development machine (openmp build root): JSON in build/bench/results.json
tools/dev bench --lattices 8x8x8x8,12x12x12x12,16x16x16x16 --min-seconds 0.3
# GPU machine: the cuda-hopper preset, then
K=build/cuda-hopper/apps/kqcd/kqcd; export KQCD_DATA_DIR=../shared/data
$K bench --backend Cuda --lattices 8x8x8x8,16x16x16x16,24x24x24x24,32x32x32x32,48x48x48x48 \\
   --families dslash,solver,contract,smear,flow,heatbath --out h200-cuda.json
# several GPUs of one node (a build with MPI and NCCL; one rank per GPU): the same case on one GPU
# and on the process grid, e.g. strong scaling at 48^4 and weak scaling at 32^4 per GPU
mpiexec -n 1 $K bench dslash --lattice 48x48x48x48 --precision single --recon 12 --json > one.json
mpiexec -n 2 $K bench dslash --lattice 48x48x48x48 --grid 1x1x1x2 --precision single --recon 12 --json > two.json
KQCD_TRANSPORT=mpi mpiexec -n 2 $K bench dslash ...        # the MPI path beside it
# its host CPU: a host-only g++ build (the OpenMP backend of a CUDA build compiles host code with
# nvcc, where kqcd's SIMD types fall back to portable lanes)
cmake -S . -B build/host -G Ninja -DCMAKE_BUILD_TYPE=Release -DKQCD_NATIVE=ON -DKQCD_ENABLE_MPI=OFF \\
   -DKQCD_ENABLE_TESTS=OFF -DKokkos_ROOT=/path/to/kokkos-openmp && cmake --build build/host --target kqcd_cli
OMP_NUM_THREADS=16 OMP_PROC_BIND=spread OMP_PLACES=cores build/host/apps/kqcd/kqcd bench --backend OpenMP \\
   --lattices 8x8x8x8,16x16x16x16,24x24x24x24 --families dslash,solver --out host16-openmp-avx512.json
```
Copy the JSON into `benchmarks/results/`, add the peers' figures of the same session to
`benchmarks/results/peers.json`, then `python3 benchmarks/make_results.py` (tables) and
`tools/dev run -- python3 benchmarks/make_results.py --plots` (plots; matplotlib is in the build
roots). `make_results.py --check` (ctest `bench.results_regenerate`) fails when this file is not
what the JSON gives. Measure on a quiet machine: the development machines' figures move with the
load of other processes, so compare only with a peer run on the same machine in the same session.

Where the figures stand against the memory:
- On the H200 the L2 (60 MB) serves most neighbour spinors: QUDA's single-precision Wilson row is
  156% of the copy in the no-reuse model, and kqcd's rows are read against QUDA's, not the copy.
- On the CPUs a double-precision even-odd CG iteration (recon 18) moves at least 1536 bytes per
  site per hopping term (doubled links, each spinor once) and 192 per vector pass, 1.34 GB at 24^4:
  at least 60 ms at the 2-core Xeon's copy of 22 GB/s and 19 ms at the 16-core host's 72 GB/s.
  kqcd's SIMD CG at 24^4 takes 94 ms and 19 ms per iteration there: the 16-core host at the memory's
  rate, the 2-core Xeon at two thirds of it; more speed needs fewer bytes per solve (compressed
  links, lower precision), not more vectorisation. The plain (scalar)
  layout is bound by its arithmetic, about 2 GFLOP/s per core.
- kqcd's hopping term covers one parity, Grid's `Dhop` the whole lattice: at 16^4 kqcd's working set
  is half of Grid's and more of it stays in the CPUs' caches (its rows there are above 100% of the
  copy), so the 24^4 rows are the closer comparison of the two at the memory bound.
- Site-local operators add their blocks to the traffic: clover A^-1 H in double reads at least 2112
  bytes per site (links, input, output and the 72 reals of the inverse).
"""


def slug(text):
    """GitHub's anchor of a heading."""
    return "".join(c for c in text.lower().replace(" ", "-") if c.isalnum() or c in "-_")


def build_labels(recs):
    """Build A, B, ... of one device, oldest first, when it has more than one."""
    builds = sorted({r.build for r in recs}, key=lambda b: min(r.when for r in recs if r.build == b))
    if len(builds) == 1:
        return {builds[0]: ""}
    return {b: f"build {chr(ord('A') + i)}" for i, b in enumerate(builds)}


def plot_name(device, peer):
    return f"{device}_vs_{peer.lower()}.png"


def generate(records, peers):
    cur = current(records)
    by_dev = defaultdict(list)
    for r in cur:
        by_dev[r.device].append(r)
    ids = [d for d, _, _ in DEVICES]
    devices = [d for d in ids if d in by_dev or any(p["device"] == d for p in peers)]
    devices += sorted(d for d in by_dev if d not in ids)
    devices += sorted({p["device"] for p in peers} - set(devices))

    lines = [INTRO]
    lines.append("Devices: " + ", ".join(f"[{device_title(d)}](#{slug(device_title(d))})" for d in devices) + ".")
    lines.append("")
    plots = []
    for d in devices:
        recs = by_dev.get(d, [])
        lines += [f"## {device_title(d)}", ""]
        if recs:
            labels = build_labels(recs)
            builds = [(labels[b], [r for r in recs if r.build == b]) for b in labels]
            lines += ["kqcd's run" + ("s" if len(builds) > 1 else "") + ":", ""]
            lines += provenance_lines(builds) + [""]
            head, all_pairs = headline(d, recs, peers, labels)
            if head:
                lines += ["### kqcd beside its peer", ""] + head
                for name in sorted({n for n, _, p in all_pairs if p["case"]["family"] == "dslash"}):
                    plots.append((d, name))
                    lines += [f"![kqcd and {name} on the {device_title(d)}](plots/{plot_name(d, name)})", ""]
            missing = [p for p in peers if p["device"] == d and not any(matches(p, r) for r in recs)]
            if missing:
                names = " and ".join(sorted({p["peer"] for p in missing}))
                lines += [f"{names} rows without a kqcd row of the same case in the committed JSON: {len(missing)} "
                          "(under \"Peer figures\").", ""]
            lines += ["### kqcd's figures", ""] + family_tables(recs, labels)
        else:
            lines += ["No kqcd run of this device is in the committed JSON; the peer's figures are below for the "
                      "next one.", ""]
        pt = peer_table(d, peers)
        if pt:
            lines += ["### Peer figures", ""] + pt + [""]
    lines.append("## Plots across devices")
    lines.append("")
    lines.append("GFLOP/s and GB/s against the lattice volume, one line per device, build and precision; the "
                 "dashed lines are the copy bandwidths.")
    lines.append("")
    lines.append("| | |")
    lines.append("|---|---|")
    lines.append("| ![Wilson hopping term](plots/wilson_dslash.png) | ![meson correlators](plots/meson_correlators.png) |")
    lines.append("")
    lines.append(METHOD)
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip("\n") + "\n", cur, plots


# ---------------------------------------------------------------------------------------------
# plots

def draw(cur, peers, plots):
    try:
        import matplotlib
    except ImportError:
        sys.exit("make_results.py: --plots needs matplotlib (tools/dev run -- python3 benchmarks/make_results.py --plots)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from plot_results import plot as plot_series

    os.makedirs(PLOTS_DIR, exist_ok=True)
    written = []
    by_dev = defaultdict(list)
    for r in cur:
        by_dev[r.device].append(r)
    for d, name in plots:
        rows = [(r, p) for n, r, p in pairs(d, by_dev[d], peers) if n == name and p["case"]["family"] == "dslash"]
        labels = [f"{peer_label(p['case'])}\n{p['case']['precision']}, recon {p['case'].get('recon', 18)}, "
                  f"{lat(p['case']['lattice'])}" for _, p in rows]
        fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.2))
        ys = list(range(len(rows)))
        ax.barh([y + 0.2 for y in ys], [gflops_by_peer(r, p) for r, p in rows], height=0.4, label="kqcd")
        ax.barh([y - 0.2 for y in ys], [p["gflops"] for _, p in rows], height=0.4, label=name)
        ax.set_yticks(ys)
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("GFLOP/s")
        ax.set_title(f"kqcd and {name}, {device_title(d)}", fontsize=9)
        ax.grid(True, axis="x", linewidth=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(PLOTS_DIR, plot_name(d, name))
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    for benchmark in ("wilson_dslash", "meson_correlators"):
        series = defaultdict(list)
        for d in sorted(by_dev):
            labels = build_labels(by_dev[d])
            for r in by_dev[d]:
                if r.get("benchmark") != benchmark or r.get("rhs", 1) != 1 or r.get("ranks", 1) != 1:
                    continue
                label = SHORT.get(d, d) + (f", {labels[r.build]}" if labels[r.build] else "")
                rec = dict(r.rec, byte_model=str(r.get("byte_model", "")).split(" (")[0])
                series[(label, r.get("precision", "?"))].append((volume(r.get("lattice")), rec))
        if series:
            written.append(plot_series(benchmark, series, PLOTS_DIR))
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 with a diff if RESULTS.md differs from what would be written")
    ap.add_argument("--plots", action="store_true", help="also redraw the plots in benchmarks/plots/ (matplotlib)")
    args = ap.parse_args()
    records = load_kqcd()
    peers = load_peers()
    text, cur, plots = generate(records, peers)
    if args.check:
        try:
            with open(OUT) as f:
                old = f.read()
        except OSError:
            old = ""
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       "benchmarks/RESULTS.md (committed)",
                                                       "benchmarks/RESULTS.md (from the JSON)"))
            print("make_results.py: RESULTS.md is not what the JSON gives; run benchmarks/make_results.py", file=sys.stderr)
            return 1
    else:
        with open(OUT, "w") as f:
            f.write(text)
        print(os.path.relpath(OUT))
    if args.plots:
        for path in draw(cur, peers, plots):
            print(os.path.relpath(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
