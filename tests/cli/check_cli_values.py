"""Checks the numbers a kqcd command prints against an independent numpy computation.

    check_cli_values.py plaquette [--same-as FILE] KQCD plaquette --config F [--json]
    check_cli_values.py smear KQCD smear --config F --method ape|stout|hyp ... --json
    check_cli_values.py flow KQCD flow --config F --eps E --tmax T --json
    check_cli_values.py measure KQCD measure --config F --kappa K --bc ... --source point:X,Y,Z,T ... --json
    check_cli_values.py info KQCD info --json

Runs the command, parses its output and recomputes every printed value with numpy_reference.py
(which imports nothing from kqcd); where ../shared/data/README.md quotes values for the file (or
for FILE of --same-as, whose links the configuration must equal), checks those too. Exits 1 and
prints each mismatch unless all agree within the tolerances below.

Tolerances (relative to max(|reference|, scale)):
- gauge observables of a file: both sides sum the same double-precision products of the same
  links; only the summation order differs, ~1e-15 in practice; the bound 1e-11 leaves room for the
  worst-case rounding of ~2.5e4 terms (8^4 lattice) and nothing for a wrong link or formula.
- smearing and flow: projections converge to ~1e-13 per link (kqcd's ProjectionParams tol) and the
  exponentials to double precision; a few steps keep the observables within ~1e-12: bound 1e-10.
  The charge Q is compared with scale 1 (it is a sum near an integer, possibly near 0).
- measure: kqcd stops each solve at |b - D x| <= tol |b| (--tol), the reference at 1e-13, so
  |dS| <= cond(D) tol |S|. A correlator at timeslice t is quadratic in S_t (the sink timeslice),
  so |dC(t)| <= 2 |S_t| |dS| <= 2 cond(D) tol sqrt(prop_corr(t) sum_t' prop_corr(t')) by
  Cauchy-Schwarz (prop_corr(t) = |S_t|^2). Every value is compared with that square root as
  scale, to 10 tol: the worst case 2 cond(D) is ~100, but residuals spread over many modes give
  <= 0.3 tol in practice, while a convention error (e.g. a traceless clover F) shows as ~3e-3.
"""
import argparse
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import numpy_reference as ref  # noqa: E402

# ../shared/data/README.md: values quoted for each file, (value, absolute tolerance): the rounding of the
# digits quoted, or 1e-6 for the header values chroma computed in single precision (nersc-l4444.cfg).
README = {
    "milc-l4444.milc": {"plaquette": (0.5948501589, 1e-10), "spatial": (1.7946751560761731 / 3, 1e-12),
                        "temporal": (1.7744257976067317 / 3, 1e-12)},
    "milc-l8888-b6.0.milc": {"plaquette": (0.5935602404, 1e-10), "spatial": (1.779002 / 3, 0.5e-6 / 3),
                             "temporal": (1.782359 / 3, 0.5e-6 / 3)},
    "nersc-l4444.cfg": {"plaquette": (0.0382422893, 1e-6), "link_trace": (0.4630322094, 1e-6)},
    "purgaug-l4448.nersc": {"plaquette": (0.9022631188, 1e-10), "link_trace": (0.7346409505, 1e-10),
                            "spatial": (0.862579, 0.5e-6), "temporal": (0.941947, 0.5e-6),
                            "polyakov_re": (0.864752, 0.5e-6), "polyakov_im": (0.002155, 0.5e-6)},
}
README["milc-l4444.ildg"] = README["milc-l4444.milc"]


class Checker:
    def __init__(self):
        self.failures = 0
        self.count = 0
        self.worst = (0.0, "")
        self.readme = (0.0, "")

    def close(self, name, got, want, rtol, scale=0.0):
        got, want = float(got), float(want)
        err = abs(got - want) / max(abs(want), scale, 1e-300)
        self.count += 1
        if err > self.worst[0]:
            self.worst = (err, name)
        if not err <= rtol:
            self.failures += 1
            print(f"MISMATCH {name}: kqcd {got!r} reference {want!r} (relative {err:.2e} > {rtol:.0e})")

    def absolute(self, name, got, want, atol):
        self.count += 1
        if abs(got - want) >= self.readme[0]:
            self.readme = (abs(got - want), name)
        if not abs(got - want) <= atol:
            self.failures += 1
            print(f"MISMATCH {name}: kqcd {got!r} README {want!r} (|diff| {abs(got - want):.2e} > {atol:.1e})")

    def true(self, name, ok, detail=""):
        self.count += 1
        if not ok:
            self.failures += 1
            print(f"FAILED {name} {detail}")

    def finish(self):
        print(f"{self.count} checks, max relative difference {self.worst[0]:.2e} ({self.worst[1]}), "
              f"{self.failures} failure(s)")
        if self.readme[1]:
            print(f"largest |difference| from a README value {self.readme[0]:.2e} ({self.readme[1]})")
        return 1 if self.failures else 0


def run_kqcd(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited with {r.returncode}")
    return r.stdout


def parse_summary_text(out):
    num = r"([-+]?\d+\.\d+)"
    m = re.search(rf"plaquette\s+{num} \(spatial {num}, temporal {num}\)\s*link trace\s+{num}\s*polyakov\s+{num} {num} i",
                  out)
    if not m:
        sys.exit(f"cannot parse the output:\n{out}")
    v = [float(x) for x in m.groups()]
    dims = re.search(r"lattice (\d+)x(\d+)x(\d+)x(\d+)", out)
    return {"lattice": [int(x) for x in dims.groups()] if dims else None, "plaquette": v[0], "spatial": v[1],
            "temporal": v[2], "link_trace": v[3], "polyakov": [v[4], v[5]]}


def load_config(path):
    if path.startswith("unit:"):
        lx, ly, lz, lt = (int(x) for x in path[5:].split("x"))
        return np.broadcast_to(np.eye(3, dtype=complex), (4, lt, lz, ly, lx, 3, 3)).copy()
    return ref.read_gauge(path)


def check_summary(c, got, u, rtol, label, readme_file=None, scale=0.0):
    """scale 1 for text output: its fixed 12 decimals are an absolute rounding."""
    want = ref.gauge_summary(u)
    c.true(f"{label} lattice", list(got["lattice"]) == list(ref.dims_of(u)), f"{got['lattice']} vs {ref.dims_of(u)}")
    for k in ("plaquette", "spatial", "temporal", "link_trace"):
        c.close(f"{label} {k}", got[k], want[k], rtol, scale)
    for i, part in enumerate(("re", "im")):
        c.close(f"{label} polyakov {part}", got["polyakov"][i], want["polyakov"][i], rtol, scale=1.0)
    if readme_file in README:
        flat = dict(got, polyakov_re=got["polyakov"][0], polyakov_im=got["polyakov"][1])
        for k, (value, atol) in README[readme_file].items():
            c.absolute(f"{label} {k} vs README ({readme_file})", flat[k], value, atol)
    return want


def mode_plaquette(c, opts, kqcd, args):
    a, _ = opt_parser().parse_known_args(args[1:])
    out = run_kqcd([kqcd] + args)
    got = json.loads(out) if "--json" in args else parse_summary_text(out)
    u = load_config(a.config)
    readme = os.path.basename(a.config)
    if opts.same_as:
        other = ref.read_gauge(opts.same_as)
        diff = np.abs(other - u).max() if other.shape == u.shape else math.inf
        c.true("links equal --same-as file", diff == 0.0, f"(max |diff| {diff:.2e})")
        readme = os.path.basename(opts.same_as)
    check_summary(c, got, u, 1e-11, "plaquette", readme, 0.0 if "--json" in args else 1.0)


def mode_smear(c, opts, kqcd, args):
    a, _ = opt_parser().parse_known_args(args[1:])
    got = json.loads(run_kqcd([kqcd] + args))
    hyp = tuple(float(x) for x in a.hyp.split(","))
    u = ref.smear(load_config(a.config), a.method, a.steps, alpha=a.alpha, rho=a.rho, hyp=hyp,
                  spatial=a.dirs == "spatial")
    check_summary(c, got, u, 1e-10, f"{a.method} x{a.steps}")


def mode_flow(c, opts, kqcd, args):
    a, _ = opt_parser().parse_known_args(args[1:])
    got = json.loads(run_kqcd([kqcd] + args))
    want = ref.wilson_flow(load_config(a.config), a.eps, a.tmax)
    rows = got["measurements"]
    c.close("flow step", got["eps"], want[1]["t"] if len(want) > 1 else a.eps, 1e-14)
    c.true("flow measurement count", len(rows) == len(want), f"{len(rows)} vs {len(want)}")
    for g, w in zip(rows, want):
        for k in ("t", "plaquette", "e_plaq", "t2e_plaq", "e_clover", "t2e_clover"):
            c.close(f"flow t={w['t']:.4f} {k}", g[k], w[k], 1e-10)
        c.close(f"flow t={w['t']:.4f} charge", g["charge"], w["charge"], 1e-10, scale=1.0)


def parse_bc(text):
    out = []
    for b in text.split(","):
        if b == "p":
            out.append(1.0 + 0j)
        elif b == "a":
            out.append(-1.0 + 0j)
        elif b == "0":
            out.append(0j)
        elif b.startswith("t:"):
            out.append(complex(math.cos(float(b[2:])), math.sin(float(b[2:]))))
        else:
            sys.exit(f"cannot parse --bc {text}")
    return out


def parse_gauss(text):
    if not text:
        return (0.0, 0)
    kv = dict(p.split("=") for p in text.split(":", 1)[1].split(","))
    return (float(kv["w"]), int(kv["n"]))


def mode_measure(c, opts, kqcd, args):
    a, _ = opt_parser().parse_known_args(args[1:])
    got = json.loads(run_kqcd([kqcd] + args))
    if not a.source.startswith("point:"):
        sys.exit("measure: only point sources are checked")
    source = tuple(int(x) for x in a.source[6:].split(","))
    link = None
    if a.link_smear:
        method, rest = a.link_smear.split(":", 1)
        kv = dict(p.split("=") for p in rest.split(","))
        link = (method, float(kv["alpha" if method == "ape" else "rho"]), int(kv["steps"]))
    momenta = [tuple(int(x) for x in p.split(",")) for p in a.momenta.split(";")] if a.momenta else []
    prop_corr, mesons, moms, _ = ref.measure(load_config(a.config), a.kappa, parse_bc(a.bc), source, csw=a.csw, mu=a.mu,
                                             src_smear=parse_gauss(a.source_smear), snk_smear=parse_gauss(a.sink_smear),
                                             link_smear=link, momenta=momenta)
    rtol = 10 * a.tol
    scale = np.sqrt(prop_corr * prop_corr.sum())
    c.close("mass", got["mass"], 1 / (2 * a.kappa) - 4, 1e-14)
    solves = got["solver"]
    c.true("12 solves", len(solves) == 12, f"({len(solves)})")
    for s in solves:
        c.true(f"solve spin {s['spin']} colour {s['colour']} converged to --tol",
               s["converged"] and s["true_residual"] <= a.tol, f"(true residual {s['true_residual']})")
    lt = len(prop_corr)
    c.true("16 x Lt mesons", len(got["mesons"]) == 16 and all(len(r) == lt for r in got["mesons"]))
    for t in range(lt):
        c.close(f"prop_corr t={t}", got["prop_corr"][t], prop_corr[t], rtol, scale[t])
        for n in range(16):
            c.close(f"mesons[{n}] t={t}", got["mesons"][n][t], mesons[n, t], rtol, scale[t])
    c.true("momenta", [tuple(m["p"]) for m in got["momenta"]] == momenta, f"{[m['p'] for m in got['momenta']]}")
    for m in got["momenta"]:
        re_, im_ = moms[tuple(m["p"])]
        for t in range(lt):
            for n in range(16):
                c.close(f"p={m['p']} re[{n}] t={t}", m["mesons_re"][n][t], re_[n, t], rtol, scale[t])
                c.close(f"p={m['p']} im[{n}] t={t}", m["mesons_im"][n][t], im_[n, t], rtol, scale[t])


def mode_info(c, opts, kqcd, args):
    src = pathlib.Path(__file__).resolve().parents[2]
    version = re.search(r"project\(kqcd VERSION (\S+)", (src / "CMakeLists.txt").read_text()).group(1)
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "tunecache.json")
        env = dict(os.environ, KQCD_TUNE_CACHE=cache, OMP_NUM_THREADS="1")
        got = json.loads(run_kqcd([kqcd] + args, env))
    c.true("kqcd_version", got["kqcd_version"] == version, f"{got['kqcd_version']!r} vs CMakeLists.txt {version!r}")
    c.true("provenance version and git", got["provenance"]["kqcd_version"] == version
           and got["provenance"]["git"] == got["git"])
    c.true("kokkos_version", re.fullmatch(r"\d+\.\d+\.\d+.*", got["kokkos_version"]) is not None, got["kokkos_version"])
    names = [b["name"] for b in got["backends"]]
    c.true("backends non-empty", len(names) > 0)
    c.true("default backend listed", got["default_backend"] in names, f"{got['default_backend']} not in {names}")
    for b in got["backends"]:
        c.true(f"backend {b['name']} concurrency", isinstance(b["concurrency"], int) and b["concurrency"] >= 1)
        c.true(f"backend {b['name']} device", isinstance(b["device"], str) and b["device"] != "")
    if "OpenMP" in names or names == ["Serial"]:
        c.true("host_threads (OMP_NUM_THREADS=1)", got["host_threads"] == 1, f"({got['host_threads']})")
    c.true("tune cache path (KQCD_TUNE_CACHE)", got["tune_cache"]["path"] == cache, f"{got['tune_cache']['path']!r}")
    simd = got["simd"]
    c.true("simd lanes", all(isinstance(simd[k], int) and simd[k] >= 1 for k in ("float_lanes", "double_lanes"))
           and simd["float_lanes"] >= simd["double_lanes"], f"float {simd['float_lanes']} double {simd['double_lanes']}")
    b = got["build"]
    c.true("build fields", all(isinstance(b[k], bool) for k in ("native", "kokkos_kernels", "mpi"))
           and isinstance(b["compiler"], str) and b["compiler"] != "")
    c.true("git", re.fullmatch(r"([0-9a-f]{7,40}(-dirty)?|unknown)", got["git"]) is not None, repr(got["git"]))
    # The build tree's CMakeCache.txt (the binary lies below it) records what the build was configured with.
    cmake_cache = next((d / "CMakeCache.txt" for d in pathlib.Path(kqcd).resolve().parents
                        if (d / "CMakeCache.txt").exists()), None)
    if cmake_cache:
        entries = dict(re.findall(r"^(\w+):\w+=(.*)$", cmake_cache.read_text(), re.M))
        c.true("build_type", b["build_type"] == entries.get("CMAKE_BUILD_TYPE"),
               f"{b['build_type']!r} vs CMakeCache {entries.get('CMAKE_BUILD_TYPE')!r}")
        if "KQCD_NATIVE" in entries:
            c.true("native", b["native"] == (entries["KQCD_NATIVE"].upper() in ("ON", "TRUE", "1")))
        kokkos = pathlib.Path(entries.get("Kokkos_DIR", "/nonexistent")) / "KokkosConfigVersion.cmake"
        if kokkos.exists():
            m = re.search(r'set\(PACKAGE_VERSION "([^"]+)"\)', kokkos.read_text())
            c.true("kokkos_version", m is not None and got["kokkos_version"] == m.group(1),
                   f"{got['kokkos_version']!r} vs {kokkos}")


def opt_parser():
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    p.add_argument("--config")
    p.add_argument("--method", default="ape")
    p.add_argument("--steps", type=int, default=1)
    p.add_argument("--alpha", type=float, default=2.5)
    p.add_argument("--rho", type=float, default=0.1)
    p.add_argument("--hyp", default="0.75,0.6,0.3")
    p.add_argument("--dirs", default="all")
    p.add_argument("--eps", type=float, default=0.01)
    p.add_argument("--tmax", type=float, default=1.0)
    p.add_argument("--kappa", type=float)
    p.add_argument("--csw", type=float, default=0.0)
    p.add_argument("--mu", type=float, default=0.0)
    p.add_argument("--bc")
    p.add_argument("--source")
    p.add_argument("--source-smear", default="")
    p.add_argument("--sink-smear", default="")
    p.add_argument("--link-smear", default="")
    p.add_argument("--momenta", default="")
    p.add_argument("--tol", type=float, default=1e-10)
    return p


def main():
    modes = {"plaquette": mode_plaquette, "smear": mode_smear, "flow": mode_flow, "measure": mode_measure,
             "info": mode_info}
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=sorted(modes))
    p.add_argument("--same-as", help="plaquette: the configuration holds the links of this file")
    p.add_argument("kqcd")
    p.add_argument("args", nargs=argparse.REMAINDER)
    opts = p.parse_args()
    if not opts.args or opts.args[0] != opts.mode:
        sys.exit(f"the kqcd arguments must start with the subcommand '{opts.mode}'")
    c = Checker()
    modes[opts.mode](c, opts, opts.kqcd, opts.args)
    return c.finish()


if __name__ == "__main__":
    sys.exit(main())
