"""Independent numpy reference for the values `kqcd plaquette/smear/flow/measure` print.

Written from ../shared/docs/conventions.md (and, where the conventions leave a choice, from what
the kqcd CLI documents), importing nothing from kqcd: gauge-file readers (MILC, NERSC, ILDG/LIME),
plaquette, link trace, Polyakov loop, APE/stout/HYP smearing with an SU(3) projection found as the
global maximum of Re tr(W V^dag) from the SVD of V, the Wilson flow (Luescher's RK3) with its
plaquette and clover observables, and the `measure` pipeline: Wilson / clover / twisted-mass
operator with boundary phases, point source, Gaussian smearing and the 16 meson correlators.

Fields: a gauge field is U[mu, t, z, y, x, a, b] (complex128); a spinor block is
psi[t, z, y, x, colour, spin, k] with k over right-hand sides; spin-colour index = 4 colour + spin.
"""
import re
import struct

import numpy as np

ND, NC = 4, 3


# ----------------------------------------------------------------------------- file readers
def _links_from_sites(data, dims, rows=3):
    """Per-site data [t,z,y,x][mu][row][col] (complex) -> U[mu,t,z,y,x,3,3]; rows=2: third = conj(r0 x r1)."""
    lx, ly, lz, lt = dims
    m = data.reshape(lt, lz, ly, lx, ND, rows, NC)
    if rows == 2:
        third = np.conj(np.cross(m[..., 0, :], m[..., 1, :]))
        m = np.concatenate([m, third[..., None, :]], axis=-2)
    return np.ascontiguousarray(np.moveaxis(m, 4, 0))


def read_milc(path):
    raw = open(path, "rb").read()
    for endian in "<>":
        if struct.unpack(endian + "i", raw[:4])[0] == 20103:
            break
    else:
        raise ValueError(f"{path}: no MILC magic number")
    dims = struct.unpack(endian + "4i", raw[4:20])
    f = np.frombuffer(raw[96:], dtype=endian + "f4").astype(np.float64)
    return _links_from_sites(f[0::2] + 1j * f[1::2], dims)


def read_nersc(path):
    raw = open(path, "rb").read()
    end = raw.index(b"END_HEADER")
    start = raw.index(b"\n", end) + 1
    header = {}
    for line in raw[:end].decode().splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            header[k.strip()] = v.strip()
    dims = tuple(int(header[f"DIMENSION_{i}"]) for i in range(1, 5))
    rows = {"4D_SU3_GAUGE": 2, "4D_SU3_GAUGE_3x3": 3}[header["DATATYPE"]]
    fp = header["FLOATING_POINT"]
    word = {"IEEE32": "f4", "IEEE32BIG": "f4", "IEEE32LITTLE": "f4", "IEEE64": "f8", "IEEE64BIG": "f8",
            "IEEE64LITTLE": "f8"}[fp]
    endian = "<" if fp.endswith("LITTLE") else ">"
    f = np.frombuffer(raw[start:], dtype=endian + word).astype(np.float64)
    return _links_from_sites(f[0::2] + 1j * f[1::2], dims, rows)


def read_ildg(path):
    raw = open(path, "rb").read()
    pos, xml, data = 0, None, None
    while pos + 144 <= len(raw):
        magic, _version, _flags, length = struct.unpack(">IHHQ", raw[pos:pos + 16])
        if magic != 0x456789AB:
            raise ValueError(f"{path}: bad LIME magic at byte {pos}")
        kind = raw[pos + 16:pos + 144].split(b"\0", 1)[0].decode()
        body = raw[pos + 144:pos + 144 + length]
        if kind == "ildg-format":
            xml = body.decode(errors="replace")
        elif kind == "ildg-binary-data":
            data = body
        pos += 144 + (length + 7) // 8 * 8
    val = {k: int(re.search(rf"<{k}>\s*(\d+)\s*</{k}>", xml).group(1)) for k in ("precision", "lx", "ly", "lz", "lt")}
    f = np.frombuffer(data, dtype=">f4" if val["precision"] == 32 else ">f8").astype(np.float64)
    return _links_from_sites(f[0::2] + 1j * f[1::2], (val["lx"], val["ly"], val["lz"], val["lt"]))


def read_gauge(path):
    head = open(path, "rb").read(16)
    if head.startswith(b"BEGIN_HEADER"):
        return read_nersc(path)
    if struct.unpack(">I", head[:4])[0] == 0x456789AB:
        return read_ildg(path)
    return read_milc(path)


def dims_of(u):
    """(Lx, Ly, Lz, Lt)."""
    return tuple(u.shape[4:0:-1])


# ----------------------------------------------------------------------------- helpers
def dag(m):
    return np.conj(np.swapaxes(m, -1, -2))


def shift(f, mu, step):
    """f(x + step * mu) on the site axes (t, z, y, x) leading f."""
    return np.roll(f, -step, axis=3 - mu)


def tr(m):
    return np.trace(m, axis1=-2, axis2=-1)


def traceless_antihermitian(m):
    a = 0.5 * (m - dag(m))
    return a - (tr(a) / 3)[..., None, None] * np.eye(3)


def expm_antihermitian(a):
    """exp(A) for anti-Hermitian A, from the eigen-decomposition of the Hermitian -iA."""
    w, v = np.linalg.eigh(-1j * a)
    return (v * np.exp(1j * w)[..., None, :]) @ dag(v)


# ----------------------------------------------------------------------------- gauge observables
def plaquette(u):
    """(total, spatial, temporal): Re tr of the plaquettes / 3 averaged over sites and planes."""
    s = {}
    for mu in range(ND):
        for nu in range(mu + 1, ND):
            p = u[mu] @ shift(u[nu], mu, 1) @ dag(shift(u[mu], nu, 1)) @ dag(u[nu])
            s[mu, nu] = tr(p).real.mean() / 3
    spatial = np.mean([s[k] for k in s if k[1] < 3])
    temporal = np.mean([s[k] for k in s if k[1] == 3])
    return (spatial + temporal) / 2, spatial, temporal


def link_trace(u):
    return tr(u).real.mean() / 3


def polyakov(u):
    line = np.broadcast_to(np.eye(3, dtype=complex), u.shape[2:]).copy()
    for t in range(u.shape[1]):
        line = line @ u[3, t]
    return tr(line).mean() / 3


def gauge_summary(u):
    p = plaquette(u)
    pl = polyakov(u)
    return {"plaquette": p[0], "spatial": p[1], "temporal": p[2], "link_trace": link_trace(u), "polyakov": [pl.real, pl.imag]}


# ----------------------------------------------------------------------------- SU(3) projection
def project_su3(v):
    """The W in SU(3) maximising Re tr(W V^dag), for a stack of 3x3 matrices V.

    With V = A diag(s) B^dag (SVD) and W = A Y B^dag, the objective is Re tr(Y diag(s)); over
    det Y = conj(det(A B^dag)) it is maximised by a diagonal Y = diag(exp(i theta_k)), so the problem
    reduces to maximising sum_k s_k cos(theta_k) with sum_k theta_k = psi: a grid search over
    (theta_1, theta_2) and Newton's method from the best grid point find the global maximum.
    """
    shape = v.shape
    v = v.reshape(-1, 3, 3)
    a, s, bh = np.linalg.svd(v)
    psi = -np.angle(np.linalg.det(a @ bh))
    s1, s2, s3 = s[:, 0:1], s[:, 1:2], s[:, 2:3]
    g = np.linspace(-np.pi, np.pi, 48, endpoint=False)
    t1, t2 = [x.ravel()[None, :] for x in np.meshgrid(g, g)]
    f = s1 * np.cos(t1) + s2 * np.cos(t2) + s3 * np.cos(psi[:, None] - t1 - t2)
    best = np.argmax(f, axis=1)
    x1, x2 = t1[0, best], t2[0, best]
    s1, s2, s3 = s[:, 0], s[:, 1], s[:, 2]
    for _ in range(100):
        x3 = psi - x1 - x2
        g1 = -s1 * np.sin(x1) + s3 * np.sin(x3)
        g2 = -s2 * np.sin(x2) + s3 * np.sin(x3)
        h11 = -s1 * np.cos(x1) - s3 * np.cos(x3)
        h22 = -s2 * np.cos(x2) - s3 * np.cos(x3)
        h12 = -s3 * np.cos(x3)
        det = h11 * h22 - h12 * h12
        ok = det > 0
        safe = np.where(ok, det, 1.0)
        d1 = np.where(ok, (h22 * g1 - h12 * g2) / safe, -0.1 * g1)
        d2 = np.where(ok, (h11 * g2 - h12 * g1) / safe, -0.1 * g2)
        x1, x2 = x1 - d1, x2 - d2
        if max(np.abs(d1).max(), np.abs(d2).max()) < 1e-15:
            break
    x3 = psi - x1 - x2
    y = np.exp(1j * np.stack([x1, x2, x3], axis=-1))
    w = (a * y[:, None, :]) @ bh
    return w.reshape(shape)


# ----------------------------------------------------------------------------- smearing
def staple(side, par, mu, eta):
    """side(x) par(x+eta) side^dag(x+mu) + side^dag(x-eta) par(x-eta) side(x-eta+mu)."""
    back = shift(side, eta, -1)
    return (side @ shift(par, eta, 1) @ dag(shift(side, mu, 1))
            + dag(back) @ shift(par, eta, -1) @ shift(back, mu, 1))


def staple_sum(u, mu, dirs):
    return sum(staple(u[eta], u[mu], mu, eta) for eta in dirs if eta != mu)


def ape_step(u, c, spatial=False):
    dirs = range(3) if spatial else range(4)
    out = u.copy()
    for mu in dirs:
        out[mu] = project_su3(c * u[mu] + staple_sum(u, mu, dirs))
    return out


def stout_step(u, rho, spatial=False):
    dirs = range(3) if spatial else range(4)
    out = u.copy()
    for mu in dirs:
        out[mu] = expm_antihermitian(traceless_antihermitian(rho * staple_sum(u, mu, dirs) @ dag(u[mu]))) @ u[mu]
    return out


def hyp_step(u, a1, a2, a3):
    """Hasenfratz-Knechtli: vbar[mu, eta] is U_mu decorated in direction eta only (eta not in
    {mu, nu, rho}); vtil[mu, nu] is U_mu decorated in the two directions other than mu, nu."""
    vbar = {}
    for mu in range(4):
        for eta in range(4):
            if eta != mu:
                vbar[mu, eta] = project_su3((1 - a3) * u[mu] + a3 / 2 * staple(u[eta], u[mu], mu, eta))
    vtil = {}
    for mu in range(4):
        for nu in range(4):
            if nu == mu:
                continue
            c = 0
            for rho in range(4):
                if rho in (mu, nu):
                    continue
                sigma = 6 - mu - nu - rho
                c = c + staple(vbar[rho, sigma], vbar[mu, sigma], mu, rho)
            vtil[mu, nu] = project_su3((1 - a2) * u[mu] + a2 / 4 * c)
    out = np.empty_like(u)
    for mu in range(4):
        c = sum(staple(vtil[nu, mu], vtil[mu, nu], mu, nu) for nu in range(4) if nu != mu)
        out[mu] = project_su3((1 - a1) * u[mu] + a1 / 6 * c)
    return out


def smear(u, method, steps, alpha=2.5, rho=0.1, hyp=(0.75, 0.6, 0.3), spatial=False):
    for _ in range(steps):
        if method == "ape":
            u = ape_step(u, alpha, spatial)
        elif method == "stout":
            u = stout_step(u, rho, spatial)
        elif method == "hyp":
            u = hyp_step(u, *hyp)
        else:
            raise ValueError(method)
    return u


# ----------------------------------------------------------------------------- Wilson flow
def flow_force(w):
    """Z(W) = TA(C W^dag) per link: Luescher's -g0^2 dS/dW W for the Wilson action."""
    return np.stack([traceless_antihermitian(staple_sum(w, mu, range(4)) @ dag(w[mu])) for mu in range(4)])


def flow_step(w0, eps):
    """Luescher's RK3 (arXiv:1006.4518, eq. C.1-C.3)."""
    z0 = eps * flow_force(w0)
    w1 = expm_antihermitian(z0 / 4) @ w0
    z1 = eps * flow_force(w1)
    w2 = expm_antihermitian(8 / 9 * z1 - 17 / 36 * z0) @ w1
    z2 = eps * flow_force(w2)
    return expm_antihermitian(3 / 4 * z2 - 8 / 9 * z1 + 17 / 36 * z0) @ w2


def clover_leaves(u, mu, nu):
    """Q_{mu nu}(x) of conventions.md: the four plaquette leaves in the (mu, nu) plane at x."""
    um, un = u[mu], u[nu]
    um_m, un_m = shift(um, mu, -1), shift(un, mu, -1)  # at x - mu
    q = um @ shift(un, mu, 1) @ dag(shift(um, nu, 1)) @ dag(un)
    q = q + un @ dag(shift(um_m, nu, 1)) @ dag(un_m) @ um_m
    q = q + dag(um_m) @ dag(shift(un_m, nu, -1)) @ shift(um_m, nu, -1) @ shift(un, nu, -1)
    q = q + dag(shift(un, nu, -1)) @ shift(um, nu, -1) @ shift(shift(un, nu, -1), mu, 1) @ dag(um)
    return q


def clover_observables(u):
    """E = <-sum_{mu<nu} tr F^2> and Q = sum_x -1/(4 pi^2) tr[F01 F23 - F02 F13 + F03 F12],
    F = (1/8)(Q - Q^dag) with its trace removed (kqcd's flow observables, gauge/topology.hpp)."""
    f = {}
    for mu in range(4):
        for nu in range(mu + 1, 4):
            f[mu, nu] = 0.25 * traceless_antihermitian(clover_leaves(u, mu, nu))
    e = -sum(tr(f[k] @ f[k]).real for k in f).mean()
    q = -(tr(f[0, 1] @ f[2, 3]).real - tr(f[0, 2] @ f[1, 3]).real + tr(f[0, 3] @ f[1, 2]).real).sum() / (4 * np.pi ** 2)
    return e, q


def flow_measure(u, t):
    p = plaquette(u)[0]
    e, q = clover_observables(u)
    e_plaq = 36 * (1 - p)
    return {"t": t, "plaquette": p, "e_plaq": e_plaq, "t2e_plaq": t * t * e_plaq, "e_clover": e, "t2e_clover": t * t * e,
            "charge": q}


def wilson_flow(u, eps, tmax):
    """Measurements at t = 0 and after each of ceil(tmax/eps) steps of tmax/n (kqcd's step rule)."""
    n = int(np.ceil(tmax / eps - 1e-9))
    h = tmax / n if n > 0 else eps
    out = [flow_measure(u, 0.0)]
    for i in range(1, n + 1):
        u = flow_step(u, h)
        out.append(flow_measure(u, i * h))
    return out


# ----------------------------------------------------------------------------- Dirac operator
G = [np.array(m, dtype=complex) for m in (
    [[0, 0, 0, 1j], [0, 0, 1j, 0], [0, -1j, 0, 0], [-1j, 0, 0, 0]],
    [[0, 0, 0, -1], [0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0]],
    [[0, 0, 1j, 0], [0, 0, 0, -1j], [-1j, 0, 0, 0], [0, 1j, 0, 0]],
    [[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]])]
G5 = G[0] @ G[1] @ G[2] @ G[3]


def gamma_basis(n):
    m = np.eye(4, dtype=complex)
    for mu in range(4):
        if (n >> mu) & 1:
            m = m @ G[mu]
    return m


def spin_mul(g, psi):
    """g psi on the spin axis (-2) for g with one non-zero entry per row (every Gamma(n))."""
    col = np.abs(g).argmax(axis=1)
    return g[np.arange(4), col][:, None] * psi[..., col, :]


def colour_mul(u, psi):
    return (u @ psi.reshape(psi.shape[:-2] + (-1,))).reshape(psi.shape)


def boundary_mask(shape, mu, phase, step):
    """Phase of a hop x -> x + step mu: b_mu forwards across the boundary, conj(b_mu) backwards."""
    idx = np.arange(shape[3 - mu])
    edge = idx == (shape[3 - mu] - 1 if step > 0 else 0)
    f = np.where(edge, phase if step > 0 else np.conj(phase), 1.0)
    sh = [1, 1, 1, 1]
    sh[3 - mu] = shape[3 - mu]
    return f.reshape(sh + [1, 1, 1])


class WilsonOperator:
    """D = A - H/2 (conventions.md, mass normalisation), A = 4 + m + c_sw (i/4) sum sigma F + i mu g5."""

    def __init__(self, u, mass, bc, csw=0.0, mu=0.0):
        self.u = u
        self.sites = u.shape[1:5]
        self.bc = bc
        self.fwd = [boundary_mask(self.sites, m, bc[m], +1) for m in range(4)]
        self.bwd = [boundary_mask(self.sites, m, bc[m], -1) for m in range(4)]
        self.udag_back = [dag(shift(u[m], m, -1)) for m in range(4)]  # U_mu^dag(x - mu)
        a = np.zeros(self.sites + (12, 12), dtype=complex)
        a[...] = (4 + mass) * np.eye(12)
        if csw != 0:
            for m in range(4):
                for n in range(m + 1, 4):
                    q = clover_leaves(u, m, n)
                    f = (q - dag(q)) / 8  # Q_{nu mu} = Q_{mu nu}^dag
                    sigma = 0.5j * (G[m] @ G[n] - G[n] @ G[m])
                    # (i/4) sum over both orders (mu,nu),(nu,mu) = (i/2) sigma_{mu nu} F_{mu nu}
                    a += 0.5j * csw * np.einsum("...ab,st->...asbt", f, sigma).reshape(self.sites + (12, 12))
        a += 1j * mu * np.kron(np.eye(3), G5)
        self.a = a

    def hop(self, psi, sign):
        """H psi (sign = +1) or H^dag psi = H psi with g_mu -> -g_mu (sign = -1)."""
        out = np.zeros_like(psi)
        for m in range(4):
            pf = colour_mul(self.u[m], shift(psi, m, 1)) * self.fwd[m]
            pb = colour_mul(self.udag_back[m], shift(psi, m, -1)) * self.bwd[m]
            out += pf + pb - sign * spin_mul(G[m], pf - pb)
        return out

    def local(self, psi, adjoint):
        a = dag(self.a) if adjoint else self.a
        flat = psi.reshape(self.sites + (12, psi.shape[-1]))
        return (a @ flat).reshape(psi.shape)

    def apply(self, psi):
        return self.local(psi, False) - 0.5 * self.hop(psi, +1)

    def apply_dag(self, psi):
        return self.local(psi, True) - 0.5 * self.hop(psi, -1)

    def solve(self, b, tol=1e-13, max_iter=5000):
        """CG on D^dag D x = D^dag b, column by column in one block, to |b - D x| <= tol |b|."""
        def dot(x, y):
            return np.einsum("ik,ik->k", np.conj(x).reshape(-1, x.shape[-1]), y.reshape(-1, y.shape[-1]))

        x = np.zeros_like(b)
        r = self.apply_dag(b)
        p = r.copy()
        rr = dot(r, r).real
        bnorm = np.sqrt(dot(b, b).real)
        for it in range(max_iter):
            ap = self.apply(p)
            alpha = rr / dot(ap, ap).real
            x += alpha * p
            r -= alpha * self.apply_dag(ap)
            rr_new = dot(r, r).real
            p = r + (rr_new / rr) * p
            rr = rr_new
            if it % 10 == 9:
                rt = b - self.apply(x)
                res = np.sqrt(dot(rt, rt).real) / bnorm
                if res.max() <= tol:
                    return x, res
        raise RuntimeError(f"reference CG did not converge: residuals {res}")


def gaussian_smear(psi, us, w, n):
    """(1 + w^2/(4N) Lap)^N psi with spatial hops over the links us (periodic)."""
    if n == 0:
        return psi
    alpha = w * w / (4.0 * n)
    back = [dag(shift(us[m], m, -1)) for m in range(3)]
    for _ in range(n):
        lap = sum(colour_mul(us[m], shift(psi, m, 1)) + colour_mul(back[m], shift(psi, m, -1)) for m in range(3))
        psi = (1 - 6 * alpha) * psi + alpha * lap
    return psi


def measure(u, kappa, bc, source, csw=0.0, mu=0.0, src_smear=(0.0, 0), snk_smear=(0.0, 0), link_smear=None,
            momenta=(), tol=1e-13):
    """The `kqcd measure` pipeline for a point source at source = (x, y, z, t). Returns
    (prop_corr[t], mesons[n][t], {p: (re[n][t], im[n][t])}, reference residuals)."""
    mass = 1 / (2 * kappa) - 4
    us = u
    if link_smear is not None:
        method, coef, steps = link_smear
        us = smear(u, method, steps, alpha=coef, rho=coef, spatial=True)
    sites = u.shape[1:5]
    b = np.zeros(sites + (3, 4, 12), dtype=complex)
    x0, y0, z0, t0 = source
    for c in range(3):
        for s in range(4):
            b[t0, z0, y0, x0, c, s, c * 4 + s] = 1
    b = gaussian_smear(b, us, *src_smear)
    op = WilsonOperator(u, mass, bc, csw, mu)
    prop, res = op.solve(b, tol)
    prop = gaussian_smear(prop, us, *snk_smear)
    s = prop.reshape(sites + (12, 12))  # S[(sink colour, spin), (source colour, spin)]
    g5 = np.kron(np.eye(3), G5)
    dens = np.empty((16,) + sites, dtype=complex)
    for n in range(16):
        gm = np.kron(np.eye(3), gamma_basis(n))
        dens[n] = tr(g5 @ dag(s) @ g5 @ gm @ s @ gm)
    norm = (np.abs(s) ** 2).sum(axis=(-1, -2))

    def tslices(d, p=(0, 0, 0)):
        """sum_x exp(-i p.(x - x0)) d(x) per timeslice: the phase origin at the source, as `kqcd measure
        --help` states (conventions.md writes exp(-i p.x))."""
        lx, ly, lz = sites[3], sites[2], sites[1]
        x = np.arange(lx)[None, None, :]
        y = np.arange(ly)[None, :, None]
        z = np.arange(lz)[:, None, None]
        ph = np.exp(-2j * np.pi * (p[0] * (x - x0) / lx + p[1] * (y - y0) / ly + p[2] * (z - z0) / lz))
        sums = (d * ph).sum(axis=(-1, -2, -3))
        return np.roll(sums, -t0, axis=-1)  # t counted from the source timeslice

    prop_corr = tslices(norm).real
    mesons = tslices(dens).real
    moms = {}
    for p in momenta:
        c = tslices(dens, p)
        moms[tuple(p)] = (c.real, c.imag)
    return prop_corr, mesons, moms, res
