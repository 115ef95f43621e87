#!/usr/bin/env python3
"""An elastoplastic shell in explicit dynamics against CalculiX's *DYNAMIC, EXPLICIT on the same
model with solid elements through the thickness (ctest explicit_ccx_plastic, labels explicit;ccx).

The case: a steel strip 20 x 10 x 2 mm (x, y, z), clamped at x = 0, whose tip edge (x = 20) is
pushed along z by a prescribed displacement to delta = 1.5 mm in 0.4 ms, x and the rotations
left free there (a roller). E 200000, nu 0.3, rho 7.85e-9, J2 with sigma_y 250 and linear
isotropic hardening H = 2000 (sigma_y + H p). The tip velocity rises as (1 - cos) over the first
0.14 ms (2.5 periods of the strip's clamped-roller mode, 56 us by beam theory: such a ramp leaves
little of that mode ringing) and is constant after it. The root first yields at about
delta_y = 0.17 mm (F_y = sigma_y b t^2 / (6 L) = 83 N); at 1.5 mm it is fully plastic (fully
plastic moment without hardening: F_p = sigma_y b t^2 / (4 L) = 125 N) and F is about 160 N.
  - ductile: 20 x 5 shell4 (MITC4) of the mid-surface, 5 points through the thickness by
    Simpson's rule (the default for a plastic section), explicit step, the same amplitude table;
  - CalculiX 2.20: the same in-plane mesh with 4 C3D8R through the thickness (400 elements),
    NLGEOM, the tip displacement prescribed on the mid-plane nodes of the tip face (the shell's
    nodes), the root face fixed. C3D8I runs in 2.20's explicit but with a 4x smaller stable
    increment (and CalculiX's manual says it is not for *DYNAMIC: its incompatible modes carry
    no mass); C3D8 locks in bending (about 40 % too strong here). CalculiX picks its
    stable increment itself (3.3e-8 s: 12,200 increments, about 25 s on one core); ductile's is
    1.35e-7 s (2,958 steps, about 1 s).

What is compared. The work of the push: with no loads, ductile's external work (energy.csv)
is the work of the prescribed motion, W (which the balance checks against kinetic energy +
internal work to round-off), and the mean tip force over a stretch of the push is
dW / d(delta). CalculiX prints the tip reaction (*NODE
PRINT RF, TOTALS=ONLY, every 10 increments), integrated here as W = int RF d(delta) by
trapezoids. The table gives both at ductile's 50 frames (F: the mean over the frame interval),
the tip pull-in u_x (mean over the tip nodes; printed, not asserted) and ductile's points
yielding in the frame's time step (of 2,000).

Asserted, after the velocity ramp (delta >= 0.32 mm, about 2 delta_y): the mean tip force over
three equal stretches of delta, each about one period of the ringing that follows yield in
both codes (about 11 frames, 88 us, in the table), so that it averages out, and W at the end;
each within 5 % of CalculiX's. The 5 % is the sum of:
  - 2 %: CalculiX's C3D8R with 4 layers against a converged solid: statically (ccx *STATIC,
    same mesh) C3D8R gives 174.3 N at 1.5 mm, C3D8I 170.7; 8 C3D8R layers change the
    explicit run's W by 0.3 %. (Elastic: C3D8R is 6 % softer than beam theory, 486 against
    500 N/mm: one in-plane point and hourglass control.);
  - 2.5 %: dynamics: both runs ring after yield (the force swings by about +-10 % around its
    mean) and their phases drift apart as their strengths differ;
  - 0.5 %: the shell's own discretisation (20 x 5 MITC4, Simpson's 5 points, exact for the fully
    plastic section's moment).
The thickness rule matters: 5-point Gauss-Legendre, which the shells used before, gives
sum w_i |zeta_i| = 0.9448 of the fully plastic moment sigma_y b t^2 / 4 and made ductile 5.8,
6.9 and 8.2 % low here (5.4 % on W); Simpson's rule is exact for it. A mistake in the
plasticity (no yield, wrong hardening, a wrong plastic moment) moves the result by more than
the 5 %.

Writes the histories side by side (stdout) and, with --svg, a plot of the tip force against
the tip deflection (hand-written SVG). Exit 0 pass, 1 fail, 77 (ctest's skip) when ccx is not
on PATH.

    ccx_plastic.py --solver build/rel/solver/ductile-solve [--ccx ccx] [--svg out.svg] [--keep]
                   [--all-frames]
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation"))
import vlib  # noqa: E402  (the structured mesh generators)

# The model: mm, N, s, tonne.
L, B, H = 20.0, 10.0, 2.0  # length (x), width (y), thickness (z)
NX, NY, NZ = 20, 5, 4  # elements along x and y; C3D8R layers through the thickness
E, NU, RHO = 200000.0, 0.3, 7.85e-9
SY, HARD = 250.0, 2000.0  # initial yield stress, linear isotropic hardening modulus
DELTA = 1.5  # tip deflection at the end of the push
T_END = 4.0e-4  # the push's duration
T_RAMP = 1.4e-4  # the tip's velocity rises from 0 to its constant value over this time
N_RAMP = 12  # table points in the ramp
FRAMES = 50  # ductile's output frames
CCX_EVERY = 10  # CalculiX's increments between printed reactions
WINDOWS = 3  # stretches of delta after the ramp whose mean forces are compared (docstring)
TOL = 0.05  # relative to CalculiX's (docstring)


def amplitude():
    """The tip displacement / DELTA as a table, linear between points in both codes: velocity
    V (1 - cos(pi t / T_RAMP)) / 2 through the ramp, V after it, 1 at T_END. The table goes on
    past T_END at the same V: ductile's last frame takes its kinetic energy at T_END from the
    half-step velocities either side of it, and a table that stopped at T_END would give the
    tip a velocity of 0 after it (the amplitude is constant past its last point), which lowers
    that frame's kinetic energy and thus the last force by about 20 N."""
    v = 1.0 / (T_END - 0.5 * T_RAMP)
    pts = []
    for i in range(N_RAMP + 1):
        t = T_RAMP * i / N_RAMP
        pts.append((t, v * (0.5 * t - T_RAMP / (2 * math.pi) * math.sin(math.pi * t / T_RAMP))))
    pts += [(T_END, 1.0), (2 * T_END, 1.0 + v * T_END)]
    return pts


def interp(x, xs, ys):
    """ys at x, linear between the points of the increasing xs (constant beyond them)."""
    if x <= xs[0]:
        return ys[0]
    for i in range(1, len(xs)):
        if x <= xs[i]:
            return ys[i - 1] + (ys[i] - ys[i - 1]) * (x - xs[i - 1]) / (xs[i] - xs[i - 1])
    return ys[-1]


def tip_deflection(t):
    amp = amplitude()
    return DELTA * interp(t, [p[0] for p in amp], [p[1] for p in amp])


def shell_job():
    m = vlib.rect_quad4(NX, NY, L, B)  # node i + (NX + 1) j + 1 at (L i / NX, B j / NY)
    nodes = [[n + 1, x, y, 0.0] for n, (x, y) in enumerate(m.nodes)]
    conn = [[e + 1] + c for e, (_, c) in enumerate(m.elems)]
    return {
        "ductile": 1,
        "title": "steel strip clamped at x = 0, tip pushed along z past yield (shell4)",
        "mesh": {"nodes": nodes, "elements": [{"type": "shell4", "connectivity": conn}],
                 "node_sets": {"root": m.node_ids(lambda x, y: x == 0.0),
                               "tip": m.node_ids(lambda x, y: x == L)},
                 "element_sets": {"strip": {"generate": [1, len(conn)]}}},
        "materials": [{"name": "steel", "elastic": {"E": E, "nu": NU}, "density": RHO,
                       "plastic": {"yield_stress": SY, "hardening": {"type": "linear", "modulus": HARD}}}],
        "sections": [{"element_set": "strip", "material": "steel", "kind": "shell", "thickness": H}],
        "steps": [{"name": "push", "procedure": "explicit",
                   "explicit": {"time": T_END, "output": {"frames": FRAMES},
                                "amplitude": [list(p) for p in amplitude()]},
                   "boundary": [{"node_set": "root", "fixed": "all"},
                                {"node_set": "tip", "displacement": {"z": DELTA}}]}],
        "output": {"fields": ["U"], "vtu": False,
                   "monitors": [{"name": "tip_uz", "node_set": "tip", "quantity": "U", "component": "z"},
                                {"name": "tip_ux", "node_set": "tip", "quantity": "U", "component": "x"}]},
    }


def solid_deck():
    m = vlib.box_hex8(NX, NY, NZ, L, B, H)  # z from 0 to H here, from -H/2 to H/2 in the deck

    def lines(values, per_line, fmt):
        return [", ".join(fmt % v for v in values[a:a + per_line]) for a in range(0, len(values), per_line)]
    out = ["*HEADING", "steel strip clamped at x = 0, tip pushed along z past yield (C3D8R)",
           "*NODE, NSET=NALL"]
    out += ["%d, %.9g, %.9g, %.9g" % (n + 1, x, y, z - H / 2) for n, (x, y, z) in enumerate(m.nodes)]
    out.append("*ELEMENT, TYPE=C3D8R, ELSET=EALL")
    out += ["%d, %s" % (e + 1, ", ".join(map(str, c))) for e, (_, c) in enumerate(m.elems)]
    out.append("*NSET, NSET=ROOT")
    out += lines(m.node_ids(lambda x, y, z: x == 0.0), 8, "%d")
    out.append("*NSET, NSET=TIP")  # the mid-plane nodes of the tip face: the shell's tip nodes
    out += lines(m.node_ids(lambda x, y, z: x == L and abs(z - H / 2) < 1e-9 * H), 8, "%d")
    out += ["*MATERIAL, NAME=STEEL", "*ELASTIC", "%g, %g" % (E, NU), "*PLASTIC",
            "%g, 0" % SY, "%g, 1" % (SY + HARD), "*DENSITY", "%g" % RHO,
            "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL", "*AMPLITUDE, NAME=PUSH"]
    out += lines([v for p in amplitude() for v in p], 8, "%.12g")
    out += ["*BOUNDARY", "ROOT, 1, 3",
            "*STEP, NLGEOM, INC=1000000", "*DYNAMIC, EXPLICIT", "1e-8, %g" % T_END,
            "*BOUNDARY, AMPLITUDE=PUSH", "TIP, 3, 3, %g" % DELTA,
            # one FREQUENCY serves all of a step's print requests in CalculiX (the last given)
            "*NODE PRINT, NSET=TIP, TOTALS=ONLY, FREQUENCY=%d" % CCX_EVERY, "RF",
            "*NODE PRINT, NSET=TIP, FREQUENCY=%d" % CCX_EVERY, "U",
            "*END STEP"]
    return "\n".join(out) + "\n"


def read_dat(path):
    """CalculiX's .dat: the TIP set's total reactions [(t, fz)] and mean displacements
    [(t, ux, uz)]."""
    with open(path) as f:
        text = f.read()
    forces = [(float(m.group(1)), float(m.group(2))) for m in re.finditer(
        r"total force \(fx,fy,fz\) for set TIP and time\s+(\S+)\s+\S+\s+\S+\s+(\S+)", text)]
    disps = []
    for m in re.finditer(r"displacements \(vx,vy,vz\) for set TIP and time\s+(\S+)\n\n((?:\s+\d+(?:\s+\S+){3}\n)+)",
                         text):
        rows = [[float(v) for v in line.split()[1:]] for line in m.group(2).strip().splitlines()]
        disps.append((float(m.group(1)), sum(r[0] for r in rows) / len(rows), sum(r[2] for r in rows) / len(rows)))
    return forces, disps


def read_ductile(out):
    """Per frame: t, the work of the prescribed motion W (the external work: the strip has no
    loads), the tip's mean u_z and u_x, and the points yielding in the frame's time step."""
    with open(os.path.join(out, "energy.csv")) as f:
        energy = list(csv.DictReader(f))
    with open(os.path.join(out, "history.csv")) as f:
        history = list(csv.DictReader(f))
    if len(energy) != len(history):
        raise RuntimeError("energy.csv has %d frames, history.csv %d" % (len(energy), len(history)))
    rows = []
    for e, h in zip(energy, history):
        w = float(e["external_work"])
        rows.append({"t": float(e["time"]), "W": w, "uz": float(h["tip_uz"]), "ux": float(h["tip_ux"]),
                     "plastic": int(h["plastic_points"])})
    return rows


def ccx_work(forces):
    """W(t) = int RF d(delta) by trapezoids over CalculiX's printed reactions."""
    ts, ws = [0.0], [0.0]
    f_prev, d_prev = 0.0, 0.0
    for t, f in forces:
        d = tip_deflection(t)
        ws.append(ws[-1] + 0.5 * (f + f_prev) * (d - d_prev))
        ts.append(t)
        f_prev, d_prev = f, d
    return ts, ws


def run(cmd, cwd, log, timeout, env=None):
    t0 = time.time()
    with open(os.path.join(cwd, log), "w") as f:
        rc = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout, env=env).returncode
    with open(os.path.join(cwd, log)) as f:
        return rc, f.read(), time.time() - t0


def svg_plot(path, series, windows):
    """Tip force against tip deflection: one polyline per code, the asserted window means as
    dots, axes with ticks, a legend."""
    W, Hh, ml, mr, mt, mb = 640, 420, 70, 20, 40, 55
    fmax = max(f for _, pts, _ in series for _, f in pts)
    ytop = 50.0 * math.ceil(fmax * 1.05 / 50.0)
    xtop = DELTA

    def X(d):
        return ml + (W - ml - mr) * d / xtop

    def Y(f):
        return Hh - mb - (Hh - mt - mb) * max(f, 0.0) / ytop
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
         'font-family="sans-serif" font-size="12">' % (W, Hh, W, Hh),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="14">Steel strip, tip pushed past yield in %.1f ms: tip force '
         '(explicit dynamics)</text>' % (ml, 1e3 * T_END)]
    for k in range(6):
        d = xtop * k / 5
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (X(d), mt, X(d), Hh - mb))
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%.1f</text>' % (X(d), Hh - mb + 16, d))
    for k in range(int(ytop / 50) + 1):
        f = 50.0 * k
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (ml, Y(f), W - mr, Y(f)))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (ml - 6, Y(f) + 4, f))
    o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>'
             % (ml, mt, W - ml - mr, Hh - mt - mb))
    o.append('<text x="%.1f" y="%d" text-anchor="middle">tip deflection delta (mm)</text>'
             % ((ml + W - mr) / 2, Hh - 14))
    o.append('<text x="18" y="%.1f" text-anchor="middle" transform="rotate(-90 18 %.1f)">tip force (N)</text>'
             % ((mt + Hh - mb) / 2, (mt + Hh - mb) / 2))
    o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888" stroke-dasharray="4 3"/>'
             % (X(tip_deflection(T_RAMP)), mt, X(tip_deflection(T_RAMP)), Hh - mb))
    o.append('<text x="%.1f" y="%d" fill="#555">end of the velocity ramp</text>'
             % (X(tip_deflection(T_RAMP)) + 5, Hh - mb - 8))
    lx, ly = W - mr - 300, Hh - mb - 110
    o.append('<rect x="%d" y="%d" width="290" height="66" fill="white" stroke="#aaa"/>' % (lx, ly))
    for n, (label, pts, colour) in enumerate(series):
        o.append('<polyline fill="none" stroke="%s" stroke-width="1.8" points="%s"/>'
                 % (colour, " ".join("%.1f,%.1f" % (X(d), Y(f)) for d, f in pts)))
        for d, f in windows[n]:
            o.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>' % (X(d), Y(f), colour))
        y = ly + 18 + 18 * n
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                 % (lx + 8, y - 4, lx + 32, y - 4, colour))
        o.append('<text x="%d" y="%d">%s</text>' % (lx + 40, y, label))
    o.append('<text x="%d" y="%d" fill="#555">dots: mean force over the compared stretches</text>'
             % (lx + 8, ly + 18 + 18 * len(series)))
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def history(frames, ts, ws, disps, every_frame):
    """The frames' table; adds delta, CalculiX's W and u_x to every frame. Returns the lines and
    both force histories, the mean force over each frame interval at its mid-deflection."""
    lines = ["%5s %8s %7s %10s %10s %10s %10s %9s %9s %6s" % (
        "frame", "t (ms)", "delta", "F ductile", "F ccx", "W ductile", "W ccx", "ux duct.", "ux ccx", "yield")]
    prev = {"delta": 0.0, "W": 0.0, "Wc": 0.0}
    pts_d, pts_c = [], []
    for k, fr in enumerate(frames):
        fr.update({"delta": tip_deflection(fr["t"]), "Wc": interp(fr["t"], ts, ws),
                   "uxc": interp(fr["t"], [p[0] for p in disps], [p[1] for p in disps])})
        dd, mid = fr["delta"] - prev["delta"], 0.5 * (fr["delta"] + prev["delta"])
        pts_d.append((mid, (fr["W"] - prev["W"]) / dd))
        pts_c.append((mid, (fr["Wc"] - prev["Wc"]) / dd))
        if every_frame or k % 5 == 4 or k == len(frames) - 1:
            lines.append("%5d %8.4f %7.3f %10.1f %10.1f %10.2f %10.2f %9.4f %9.4f %6d" % (
                k + 1, 1e3 * fr["t"], fr["delta"], pts_d[-1][1], pts_c[-1][1], fr["W"], fr["Wc"], fr["ux"],
                fr["uxc"], fr["plastic"]))
        prev = fr
    return lines, pts_d, pts_c


def check(what, got, ref, lines, fails):
    """One asserted comparison: a line of the report, and a failure beyond TOL."""
    err = got / ref - 1.0
    bad = abs(err) > TOL
    lines.append("  %s: ductile %.2f  ccx %.2f  difference %+.1f %%%s" % (what, got, ref, 100 * err, "  FAIL" * bad))
    if bad:
        fails.append("%s: ductile %.2f, ccx %.2f (%+.1f %%)" % (what, got, ref, 100 * err))


def compare(frames, forces, disps, every_frame=False):
    """The table and the checks; returns (lines, failures, plot series, window means)."""
    ts, ws = ccx_work(forces)
    fails = []
    lines, pts_d, pts_c = history(frames, ts, ws, disps, every_frame)
    # WINDOWS equal stretches of delta from the end of the ramp to DELTA; W at their ends by
    # linear interpolation in delta (ductile between its frames, CalculiX between its reactions)
    dd, wd = [fr["delta"] for fr in frames], [fr["W"] for fr in frames]
    dc = [tip_deflection(t) for t in ts]
    d0 = tip_deflection(T_RAMP)
    marks = [[], []]
    lines += ["", "after the ramp, tolerance %.0f %% (mean forces in N, work in N mm):" % (100 * TOL)]
    for w in range(WINDOWS):
        a, b = d0 + (DELTA - d0) * w / WINDOWS, d0 + (DELTA - d0) * (w + 1) / WINDOWS
        fd = (interp(b, dd, wd) - interp(a, dd, wd)) / (b - a)
        fc = (interp(b, dc, ws) - interp(a, dc, ws)) / (b - a)
        marks[0].append((0.5 * (a + b), fd))
        marks[1].append((0.5 * (a + b), fc))
        check("mean tip force over delta %.3f .. %.3f" % (a, b), fd, fc, lines, fails)
    last = frames[-1]
    check("work of the push at the end", last["W"], last["Wc"], lines, fails)
    # both tips follow the table (u_z is prescribed; this checks the two decks say the same)
    off = max([abs(fr["uz"] - fr["delta"]) for fr in frames] + [abs(uz - tip_deflection(t)) for t, _, uz in disps])
    if off > 1e-3 * DELTA:
        fails.append("a tip's u_z is %.3g off the prescribed deflection" % off)
    lines.append("  tip pull-in u_x at the end (mm, not asserted): ductile %.4f  ccx %.4f  (%+.1f %%)"
                 % (last["ux"], last["uxc"], 100 * (last["ux"] / last["uxc"] - 1.0)))
    series = [("ductile, shell4 (MITC4), 5 points", pts_d, "#1f77b4"),
              ("CalculiX 2.20, C3D8R, 4 layers", pts_c, "#d62728")]
    return lines, fails, series, marks


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--solver", required=True, help="ductile-solve")
    ap.add_argument("--ccx", default="ccx")
    ap.add_argument("--svg", help="write the plot here")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--all-frames", action="store_true", help="print every frame (default: every fifth)")
    args = ap.parse_args()
    if shutil.which(args.ccx) is None:
        print("SKIP: CalculiX (%s) is not on PATH: install calculix-ccx (scripts/setup-debian.sh)" % args.ccx)
        return 77
    solver = os.path.abspath(args.solver)
    work = tempfile.mkdtemp(prefix="ccx_plastic_")
    try:
        with open(os.path.join(work, "strip.json"), "w") as f:
            json.dump(shell_job(), f)
        with open(os.path.join(work, "strip.inp"), "w") as f:
            f.write(solid_deck())
        rc, log, t_d = run([solver, "strip.json", "-o", "out", "--threads", "1"], work, "ductile.log", 300)
        if rc != 0:
            print("FAIL: ductile-solve exited %d:\n%s" % (rc, log[-2000:]))
            return 1
        rc, log, t_c = run([args.ccx, "-i", "strip"], work, "ccx.log", 300, dict(os.environ, OMP_NUM_THREADS="1"))
        if rc != 0 or "Job finished" not in log:
            print("FAIL: ccx exited %d:\n%s" % (rc, log[-2000:]))
            return 1
        frames = read_ductile(os.path.join(work, "out"))
        forces, disps = read_dat(os.path.join(work, "strip.dat"))
        if not forces or not disps:
            print("FAIL: no reactions or displacements in %s" % os.path.join(work, "strip.dat"))
            return 1
        dt_c = re.search(r"SELECTED time increment:\s*(\S+)", log)
        print("ductile %.1f s; ccx %.1f s (time increment %s, %d reactions read)"
              % (t_d, t_c, dt_c.group(1) if dt_c else "?", len(forces)))
        lines, fails, series, marks = compare(frames, forces, disps, args.all_frames)
        print("\n".join(lines))
        if args.svg:
            svg_plot(args.svg, series, marks)
            print("plot: %s" % args.svg)
        if fails:
            print("FAIL: " + "; ".join(fails))
            return 1
        print("ok")
        return 0
    finally:
        if args.keep:
            print("work directory: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
