#!/usr/bin/env python3
"""Mohr-Coulomb perfect plasticity on homogeneous states with exact answers.

Material: E = 2000, nu = 0.2, c = 5, phi = 20 deg; psi = phi (associative) unless stated;
tension positive; principal stresses s1 >= s2 >= s3; yield (main plane)
    (s1 - s3) + (s1 + s3) sin(phi) = 2 c cos(phi).
Every FE model is one element with a homogeneous state (the exact FE solution is the exact
continuum solution), so the tolerances are those of the Newton iteration: force_tolerance
1e-12, displacement_tolerance 0.

(A) Triaxial compression, one hex8 [0,1]^3, solid: rollers on x = 0, y = 0, z = 0; step 1:
    lateral pressure p on the x = 1 and y = 1 faces with u_z(top) = 0 (elastic: s_xx = s_yy = -p,
    s_zz = -2 nu p); step 2: pressure held, u_z(top) ramped to -delta in 10 increments (about 3x
    the yield strain). At failure s1 = s2 = -p (lateral), s3 = s_zz: the left edge of the
    pyramid, and
        |s_zz| = sigma_f(p) = p (1 + sin phi)/(1 - sin phi) + 2 c cos(phi)/(1 - sin phi)
    (p = 0: the unconfined compressive strength 2 c cos(phi)/(1 - sin(phi)); phi = 0: Tresca,
    s_axial - p = 2c, i.e. the largest shear stress = c). Before yield s_zz = -2 nu p + E eps_zz
    (the lateral stresses do not change). So at every increment
        s_zz = max(-sigma_f, -2 nu p + E eps_zz),   s_xx = s_yy = -p.
    Flow: on the edge both planes (s1, s3) and (s2, s3) are active with equal multipliers
    (x <-> y symmetry), flow vectors (1 + sin psi, 0, -(1 - sin psi)) and
    (0, 1 + sin psi, -(1 - sin psi)), so while the stress is constant the strain increments are
        d eps_xx / d eps_zz = d eps_yy / d eps_zz = -(1 + sin psi) / (2 (1 - sin psi))
    (measured from U between the last two increments), and, the direction never changing, the
    final PEEQ = sqrt(2/3 eps_p : eps_p) with eps_p = eps - C^-1 sigma (eps from U).
    Cases (phi, psi; p): (20, 20; 0, 5, 20), (20, 5; 0, 10), (0, 0; 0, 10).
    Tolerances: stresses 1e-6 relative to sigma_f, flow ratio 1e-6 relative, PEEQ 1e-6 relative.

(B) Plane-strain biaxial compression, one quad4 [0,1]^2, plane_strain: rollers on x = 0 and
    y = 0; step 1: pressure p on x = 1 with u_y(top) = 0; step 2: u_y(top) -> -delta = -2 sigma_f/E
    in 20 increments. With s_zz intermediate at failure (main plane, s1 = s_xx = -p, s3 = s_yy) the
    limit is again |s_yy| = sigma_f(p), the plastic flow has no zz component (for any psi), so
    s_zz = nu (s_xx + s_yy) stays elastic, and d eps_xx / d eps_yy = -(1 + sin psi)/(1 - sin psi).
    Cases: (20, 20; p = 0, 5), (20, 5; p = 5), and (20, 20; p = 20), where s_zz is the LARGEST
    principal stress when yield starts: the return goes main plane (s_zz, s_yy) for three
    increments, then to the edge s_zz = s_xx, and ends on s_yy = -sigma_f(p). Every increment
    of every case is compared with an independent return mapping written here (below), driven
    along the same mixed path
    (eps_zz = 0, eps_yy prescribed, eps_xx solved by bisection so that s_xx = -p):
    s_xx, s_yy, s_zz and PEEQ within 1e-6 (relative to sigma_f, PEEQ to its final value); the
    last increment against the closed form sigma_f within 1e-6; the flow ratio (first three
    cases) within 1e-6.

(C) Rotated principal axes, fully strain driven (every node prescribed, so the strain is exact):
    (C1) plane strain simple shear of one quad4, u = (gamma y, 0), gamma to 0.03 in 10
    increments: Tresca (phi = psi = 0) must give s_xy = c, other stresses 0; MC phi = 20,
    psi = 0 (no dilation: flow is pure shear) s_xy = c cos(phi), others 0; associative
    (phi = psi = 20, constrained dilation: the mean stress keeps falling and the shear stress
    rising) is compared with the independent return mapping at every increment.
    (C2) one hex8 with u = eps . x at every node along a three-step strain path with all six
    components (main plane, then edges, then volumetric expansion to the apex
    s1 = s2 = s3 = c cot(phi)), phi = 20 with psi = 20 and psi = 5: all six stress components
    and PEEQ against the independent return mapping at every increment, 1e-8 relative to
    2 c cos(phi) (PEEQ 1e-8 relative to its largest value).

Independent reference: a principal-space backward-Euler return written here without the
selection rules of de Souza Neto et al. Box 8.5: every set of one or two of the six planes
(s_i - s_j) + (s_i + s_j) sin(phi) = 2 c cos(phi) (i != j, unsorted principal values) is tried
as active set, sigma = sigma_trial - sum dgamma_k D m_k (m_k the same planes with psi), and the
set with dgamma >= 0 whose result violates no plane is taken; if none, the apex c cot(phi).
The strain-driven path uses a Jacobi eigen-decomposition of the trial stress; PEEQ accumulates
sqrt(2/3 deps_p : deps_p) per increment with deps_p = C^-1 (sigma_trial - sigma).
"""
import math

import vlib

E, NU, C = 2000.0, 0.2, 5.0
PHI = 20.0
G = E / (2 * (1 + NU))
LAM = E * NU / ((1 + NU) * (1 - 2 * NU))
SOLVER = {"newton": {"force_tolerance": 1e-12, "displacement_tolerance": 0.0, "max_iterations": 200},
          "linear": {"tolerance": 1e-14, "max_iterations": 10000}}
TOL_STRESS = 1e-6
TOL_PATH = 1e-8
NEWTON_MAX = [0]  # largest Newton iteration count of one increment over all runs (recorded)


def sigma_f(p, phi):
    s = math.sin(math.radians(phi))
    return p * (1 + s) / (1 - s) + 2 * C * math.cos(math.radians(phi)) / (1 - s)


def mc_material(name, phi, psi):
    pl = {"criterion": "mohr_coulomb", "cohesion": C, "friction_angle": phi}
    if psi != phi:
        pl["dilation_angle"] = psi
    return vlib.material(name, E, NU, pl)


# ----------------------------------------------------------------------------------------------
# independent reference: return mapping by active-set enumeration


def solve(A, b):
    """Gaussian elimination with partial pivoting (small dense systems); None if singular."""
    n = len(b)
    M = [list(A[i]) + [b[i]] for i in range(n)]
    scale = max(abs(v) for row in A for v in row) or 1.0
    for k in range(n):
        piv = max(range(k, n), key=lambda i: abs(M[i][k]))
        if abs(M[piv][k]) < 1e-12 * scale:
            return None
        M[k], M[piv] = M[piv], M[k]
        for i in range(k + 1, n):
            f = M[i][k] / M[k][k]
            for j in range(k, n + 1):
                M[i][j] -= f * M[k][j]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (M[i][n] - sum(M[i][j] * x[j] for j in range(i + 1, n))) / M[i][i]
    return x


def plane(i, j, s_angle):
    v = [0.0, 0.0, 0.0]
    v[i] = 1 + s_angle
    v[j] = -(1 - s_angle)
    return v


PAIRS = [(i, j) for i in range(3) for j in range(3) if i != j]


def de(v):
    tr = LAM * sum(v)
    return [tr + 2 * G * x for x in v]


def mc_return_principal(s_tr, phi, psi):
    """Backward-Euler return of unsorted principal trial stresses; returns (stress, kind)."""
    sp, cp, ss = math.sin(math.radians(phi)), math.cos(math.radians(phi)), math.sin(math.radians(psi))
    k2 = 2 * C * cp
    scale = max(abs(x) for x in s_tr) + C
    tol = 1e-12 * scale

    def yf(s, ij):
        n = plane(ij[0], ij[1], sp)
        return sum(a * b for a, b in zip(n, s)) - k2

    if max(yf(s_tr, ij) for ij in PAIRS) <= tol:
        return list(s_tr), "elastic"
    cands = []
    for size in (1, 2):
        sets = [[ij] for ij in PAIRS] if size == 1 else [[a, b] for ia, a in enumerate(PAIRS) for b in PAIRS[ia + 1:]]
        for act in sets:
            N = [plane(i, j, sp) for i, j in act]
            DM = [de(plane(i, j, ss)) for i, j in act]
            A = [[sum(a * b for a, b in zip(N[l], DM[k])) for k in range(len(act))] for l in range(len(act))]
            dg = solve(A, [yf(s_tr, ij) for ij in act])
            if dg is None or min(dg) < -1e-12:
                continue
            s = [s_tr[q] - sum(dg[k] * DM[k][q] for k in range(len(act))) for q in range(3)]
            if max(yf(s, ij) for ij in PAIRS) <= 1e-9 * scale:
                cands.append((s, "plane" if size == 1 else "edge"))
        if cands:
            break
    if cands:
        return cands[0]
    if sp <= 0:
        raise RuntimeError("Tresca: no return found")
    a = C * cp / sp
    return [a, a, a], "apex"


def jacobi_eigen(S):
    """Symmetric 3x3 -> (eigenvalues, V with eigenvectors as columns)."""
    A = [list(r) for r in S]
    V = [[1.0 if i == j else 0.0 for j in range(3)] for i in range(3)]
    for _ in range(100):
        off = sum(A[i][j] ** 2 for i in range(3) for j in range(3) if i != j)
        if off <= 1e-40 * (sum(A[i][i] ** 2 for i in range(3)) + 1e-300):
            break
        for p in range(3):
            for q in range(p + 1, 3):
                if A[p][q] == 0.0:
                    continue
                th = (A[q][q] - A[p][p]) / (2 * A[p][q])
                t = (1.0 if th >= 0 else -1.0) / (abs(th) + math.sqrt(th * th + 1))
                c = 1 / math.sqrt(t * t + 1)
                s = t * c
                for k in range(3):  # A <- A J
                    akp, akq = A[k][p], A[k][q]
                    A[k][p], A[k][q] = c * akp - s * akq, s * akp + c * akq
                for k in range(3):  # A <- J^T A
                    apk, aqk = A[p][k], A[q][k]
                    A[p][k], A[q][k] = c * apk - s * aqk, s * apk + c * aqk
                for k in range(3):
                    vkp, vkq = V[k][p], V[k][q]
                    V[k][p], V[k][q] = c * vkp - s * vkq, s * vkp + c * vkq
    return [A[i][i] for i in range(3)], V


def voigt_to_tensor(s):
    return [[s[0], s[3], s[4]], [s[3], s[1], s[5]], [s[4], s[5], s[2]]]


def compliance(s):
    """C^-1 sigma, engineering shear strains."""
    tr = s[0] + s[1] + s[2]
    return [((1 + NU) * s[i] - NU * tr) / E for i in range(3)] + [s[i] / G for i in range(3, 6)]


class MCPoint:
    """Strain-driven material point (Voigt xx, yy, zz, xy, xz, yz; engineering shear strains)."""

    def __init__(self, phi, psi):
        self.phi, self.psi = phi, psi
        self.ep = [0.0] * 6
        self.peeq = 0.0
        self.D = vlib.iso_stiffness(E, NU)

    def trial(self, eps):
        return vlib.matvec(self.D, [a - b for a, b in zip(eps, self.ep)])

    def stress(self, eps, commit=False):
        st = self.trial(eps)
        lam, V = jacobi_eigen(voigt_to_tensor(st))
        pr, kind = mc_return_principal(lam, self.phi, self.psi)
        if kind == "elastic":
            s = st
        else:
            T = [[sum(pr[k] * V[i][k] * V[j][k] for k in range(3)) for j in range(3)] for i in range(3)]
            s = [T[0][0], T[1][1], T[2][2], T[0][1], T[0][2], T[1][2]]
        if commit:
            dep = compliance([a - b for a, b in zip(st, s)])
            self.ep = [a + b for a, b in zip(self.ep, dep)]
            self.peeq += math.sqrt(2.0 / 3.0 * (sum(d * d for d in dep[:3]) + 0.5 * sum(d * d for d in dep[3:])))
        return s, kind


def biaxial_reference(phi, psi, p, eyy_path):
    """Plane strain, eps_zz = 0, eps_yy given, eps_xx such that s_xx = -p; [(s, peeq, exx)]."""
    pt = MCPoint(phi, psi)
    out = []
    for eyy in eyy_path:
        lo, hi = -0.5, 0.5
        f = lambda exx: pt.stress([exx, eyy, 0.0, 0.0, 0.0, 0.0])[0][0] + p
        if not (f(lo) < 0 < f(hi)):
            raise RuntimeError("biaxial reference: bracket")
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if f(mid) < 0:
                lo = mid
            else:
                hi = mid
            if hi - lo < 1e-17:
                break
        exx = 0.5 * (lo + hi)
        s, _ = pt.stress([exx, eyy, 0.0, 0.0, 0.0, 0.0], commit=True)
        out.append((s, pt.peeq, exx))
    return out


# ----------------------------------------------------------------------------------------------
# FE cases


def confine_compress(loads, rollers, axis, delta, ninc):
    """Two steps: the confining loads with the top held, then the top pushed by -delta along axis."""
    def step(name, n, d):
        return {"name": name, "increments": n, "loads": loads,
                "boundary": rollers + [{"node_set": "top", "displacement": {axis: d}}]}
    return [step("confine", 1, 0.0), step("compress", ninc, -delta)]


def run_case(args, chk, wd, name, mesh, mat, kind, steps, node_sets, surfaces=None):
    j = vlib.job(mesh, [mat], [{"element_set": "all", "material": mat["name"], "kind": kind}], steps,
                 node_sets=node_sets, surfaces=surfaces, solver=SOLVER, title=name)
    res = vlib.run(args, j, wd, name, timeout=100)
    vlib.require_ok(chk, res, name)
    its = [inc["newton_iterations"] for inc in res.summary["increments"]]
    NEWTON_MAX[0] = max(NEWTON_MAX[0], max(its))
    files = res.vtu_files()
    nincs = sum(s["increments"] for s in steps)
    if len(files) != nincs:
        chk.fail_now("%s: %d VTU files, expected %d" % (name, len(files), nincs))
    return res, [res.vtu(f) for f in files]


def triaxial(args, chk, wd):
    mesh = vlib.box_hex8(1, 1, 1)
    ns = {"x0": mesh.node_ids(lambda x, y, z: x == 0), "y0": mesh.node_ids(lambda x, y, z: y == 0),
          "z0": mesh.node_ids(lambda x, y, z: z == 0), "top": mesh.node_ids(lambda x, y, z: z == 1),
          "x1": mesh.node_ids(lambda x, y, z: x == 1), "y1": mesh.node_ids(lambda x, y, z: y == 1)}
    surf = {"x1": mesh.faces(lambda x, y, z: x == 1), "y1": mesh.faces(lambda x, y, z: y == 1)}
    rollers = [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]},
               {"node_set": "z0", "fixed": ["z"]}]
    ninc = 10
    worst = {"s": 0.0, "flow": 0.0, "peeq": 0.0}
    for phi, psi, pressures in ((PHI, PHI, (0.0, 5.0, 20.0)), (PHI, 5.0, (0.0, 10.0)), (0.0, 0.0, (0.0, 10.0))):
        for p in pressures:
            name = "triax_phi%g_psi%g_p%g" % (phi, psi, p)
            sf = sigma_f(p, phi)
            e_yield = (sf - 2 * NU * p) / E
            delta = 3.0 * e_yield
            loads = [{"type": "pressure", "surface": "x1", "value": p},
                     {"type": "pressure", "surface": "y1", "value": p}] if p > 0 else []
            steps = confine_compress(loads, rollers, "z", delta, ninc)
            res, vt = run_case(args, chk, wd, name, mesh, mc_material("rock", phi, psi), "solid", steps,
                               ns, surf if p > 0 else None)
            es = 0.0
            for k, v in enumerate(vt):
                ezz = 0.0 if k == 0 else -delta * k / ninc
                S = v["cell"]["S"][0]
                ref = [-p, -p, max(-sf, -2 * NU * p + E * ezz), 0.0, 0.0, 0.0]
                es = max(es, max(abs(a - b) for a, b in zip(S, ref)) / sf)
            chk.le(name + "_s_err", es, TOL_STRESS)
            worst["s"] = max(worst["s"], es)
            # flow direction from U between the last two increments (both beyond yield)
            U1, U2 = vt[-2]["point"]["U"], vt[-1]["point"]["U"]
            ux = lambda U: sum(U[n - 1][0] for n in ns["x1"]) / len(ns["x1"])
            uy = lambda U: sum(U[n - 1][1] for n in ns["y1"]) / len(ns["y1"])
            dz = -delta / ninc
            sp = math.sin(math.radians(psi))
            ratio_ref = -(1 + sp) / (2 * (1 - sp))
            ef = max(abs((ux(U2) - ux(U1)) / dz - ratio_ref), abs((uy(U2) - uy(U1)) / dz - ratio_ref)) / abs(ratio_ref)
            chk.le(name + "_flow_err", ef, TOL_STRESS)
            worst["flow"] = max(worst["flow"], ef)
            # final PEEQ from the total plastic strain
            eps = [ux(U2), uy(U2), -delta, 0.0, 0.0, 0.0]
            eel = compliance([-p, -p, -sf, 0.0, 0.0, 0.0])
            epl = [a - b for a, b in zip(eps, eel)]
            peeq_ref = math.sqrt(2.0 / 3.0 * sum(x * x for x in epl))
            pe = abs(vt[-1]["cell"]["PEEQ"][0][0] - peeq_ref) / peeq_ref
            chk.le(name + "_peeq_err", pe, TOL_STRESS)
            chk.expect(vt[0]["cell"]["PEEQ"][0][0] == 0.0, name + ": step 1 must be elastic")
    return worst


def biaxial(args, chk, wd):
    mesh = vlib.rect_quad4(1, 1)
    ns = {"x0": mesh.node_ids(lambda x, y: x == 0), "y0": mesh.node_ids(lambda x, y: y == 0),
          "x1": mesh.node_ids(lambda x, y: x == 1), "top": mesh.node_ids(lambda x, y: y == 1)}
    surf = {"x1": mesh.faces(lambda x, y: x == 1)}
    rollers = [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]}]
    ninc = 20
    for phi, psi, p, flow in ((PHI, PHI, 0.0, True), (PHI, PHI, 5.0, True), (PHI, 5.0, 5.0, True),
                              (PHI, PHI, 20.0, False)):
        name = "biax_phi%g_psi%g_p%g" % (phi, psi, p)
        sf = sigma_f(p, phi)
        delta = 2.0 * sf / E  # yield at 30-50 % of the path in every case
        loads = [{"type": "pressure", "surface": "x1", "value": p}] if p > 0 else []
        steps = confine_compress(loads, rollers, "y", delta, ninc)
        res, vt = run_case(args, chk, wd, name, mesh, mc_material("rock", phi, psi), "plane_strain", steps,
                           ns, surf if p > 0 else None)
        path = [0.0] + [-delta * k / ninc for k in range(1, ninc + 1)]
        ref = biaxial_reference(phi, psi, p, path)
        es = ep = 0.0
        pmax = max(r[1] for r in ref)
        for v, (s, pq, _) in zip(vt, ref):
            S = v["cell"]["S"][0]
            es = max(es, max(abs(S[i] - s[i]) for i in range(3)) / sf, abs(S[3]) / sf)
            ep = max(ep, abs(v["cell"]["PEEQ"][0][0] - pq) / pmax)
        chk.le(name + "_s_err", es, TOL_STRESS)
        chk.le(name + "_peeq_err", ep, TOL_STRESS)
        # closed form at the end of the path (the reference must agree too: it checks itself)
        S = vt[-1]["cell"]["S"][0]
        ec = abs(-S[1] - sf) / sf
        chk.le(name + "_limit_err", ec, TOL_STRESS)
        chk.expect(abs(-ref[-1][0][1] - sf) / sf < 1e-10,
                   "%s: reference return mapping ends at s_yy = %.10g, closed form %.10g" % (name, ref[-1][0][1], -sf))
        if flow:
            U1, U2 = vt[-2]["point"]["U"], vt[-1]["point"]["U"]
            ux = lambda U: sum(U[n - 1][0] for n in ns["x1"]) / len(ns["x1"])
            sp = math.sin(math.radians(psi))
            ratio_ref = -(1 + sp) / (1 - sp)
            ef = abs((ux(U2) - ux(U1)) / (-delta / ninc) - ratio_ref) / abs(ratio_ref)
            chk.le(name + "_flow_err", ef, TOL_STRESS)
            szz_ref = NU * (-p - sf)
            chk.le(name + "_szz_err", abs(S[2] - szz_ref) / sf, TOL_STRESS)


def simple_shear(args, chk, wd):
    mesh = vlib.rect_quad4(1, 1)
    ns = {"all": mesh.node_ids(lambda x, y: True)}
    # one node set per node for the prescribed u = (gamma y, 0)
    nsets = {"n%d" % i: [i] for i in ns["all"]}
    ninc, gmax = 10, 0.03

    def bcs(g):
        return [{"node_set": "n%d" % i, "displacement": {"x": g * mesh.nodes[i - 1][1], "y": 0.0}}
                for i in ns["all"]]

    for phi, psi, exact in ((0.0, 0.0, C), (PHI, 0.0, C * math.cos(math.radians(PHI))), (PHI, PHI, None)):
        name = "shear_phi%g_psi%g" % (phi, psi)
        steps = [{"name": "shear", "increments": ninc, "boundary": bcs(gmax)}]
        res, vt = run_case(args, chk, wd, name, mesh, mc_material("rock", phi, psi), "plane_strain", steps, nsets)
        pt = MCPoint(phi, psi)
        es = 0.0
        scale = 2 * C * math.cos(math.radians(phi))
        for k, v in enumerate(vt):
            s, _ = pt.stress([0.0, 0.0, 0.0, gmax * (k + 1) / ninc, 0.0, 0.0], commit=True)
            S = v["cell"]["S"][0]
            es = max(es, max(abs(a - b) for a, b in zip(S, s)) / scale)
        chk.le(name + "_s_err", es, TOL_PATH)
        if exact is not None:
            S = vt[-1]["cell"]["S"][0]
            ee = max(abs(S[3] - exact), abs(S[0]), abs(S[1]), abs(S[2])) / exact
            chk.le(name + "_exact_err", ee, TOL_PATH)
        pe = abs(vt[-1]["cell"]["PEEQ"][0][0] - pt.peeq) / pt.peeq
        chk.le(name + "_peeq_err", pe, TOL_PATH)


# three steps of homogeneous strain (xx, yy, zz, 2xy, 2xz, 2yz) at the step ends
PATH3D = [[-0.010, 0.004, 0.002, 0.006, -0.003, 0.002],
          [-0.012, -0.006, 0.006, -0.004, 0.005, 0.003],
          [0.030, 0.034, 0.036, -0.002, 0.004, 0.006]]
NINC3D = 8


def general_path(args, chk, wd):
    mesh = vlib.box_hex8(1, 1, 1)
    nsets = {"n%d" % i: [i] for i in range(1, len(mesh.nodes) + 1)}

    def bcs(e):
        out = []
        for i, x in enumerate(mesh.nodes):
            # u = eps . x with the tensor (not engineering) shears
            u = [e[0] * x[0] + 0.5 * e[3] * x[1] + 0.5 * e[4] * x[2],
                 0.5 * e[3] * x[0] + e[1] * x[1] + 0.5 * e[5] * x[2],
                 0.5 * e[4] * x[0] + 0.5 * e[5] * x[1] + e[2] * x[2]]
            out.append({"node_set": "n%d" % (i + 1), "displacement": {"x": u[0], "y": u[1], "z": u[2]}})
        return out

    for psi in (PHI, 5.0):
        name = "path3d_psi%g" % psi
        steps = [{"name": "s%d" % (k + 1), "increments": NINC3D, "boundary": bcs(e)} for k, e in enumerate(PATH3D)]
        res, vt = run_case(args, chk, wd, name, mesh, mc_material("rock", PHI, psi), "solid", steps, nsets)
        pt = MCPoint(PHI, psi)
        prev = [0.0] * 6
        refs, kinds = [], []
        for e in PATH3D:
            for k in range(NINC3D):
                eps = [a + (b - a) * (k + 1) / NINC3D for a, b in zip(prev, e)]
                s, kind = pt.stress(eps, commit=True)
                refs.append((s, pt.peeq))
                kinds.append(kind)
            prev = e
        scale = 2 * C * math.cos(math.radians(PHI))
        pmax = max(r[1] for r in refs)
        es = ep = 0.0
        for v, (s, pq) in zip(vt, refs):
            S = v["cell"]["S"][0]
            es = max(es, max(abs(a - b) for a, b in zip(S, s)) / scale)
            ep = max(ep, abs(v["cell"]["PEEQ"][0][0] - pq) / pmax)
        chk.le(name + "_s_err", es, TOL_PATH)
        chk.le(name + "_peeq_err", ep, TOL_PATH)
        chk.record(name + "_returns", "/".join("%s%d" % (k, kinds.count(k)) for k in ("elastic", "plane", "edge", "apex")
                                               if kinds.count(k)))
        chk.expect(all(k in kinds for k in ("plane", "edge", "apex")),
                   "%s: the path should visit plane, edge and apex returns: %s" % (name, kinds))


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("mohr_coulomb")
    with vlib.TempDir(args.keep) as wd:
        triaxial(args, chk, wd)
        biaxial(args, chk, wd)
        simple_shear(args, chk, wd)
        general_path(args, chk, wd)
    chk.record("max_newton_its_per_increment", NEWTON_MAX[0])
    chk.finish()


if __name__ == "__main__":
    main()
