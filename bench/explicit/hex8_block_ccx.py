"""hex8 explicit dynamics against CalculiX explicit on the same block, time step and cores.

A block of N x N x N hex8 (C3D8R: one point with hourglass control in both codes, or C3D8 with
--full), 100 mm a side, steel (E 210000 MPa, nu 0.3, 7.85e-9 t/mm^3), clamped at its base, its
top pushed sideways by 1 kN ramped over the step, as a deck with `*DYNAMIC, EXPLICIT`.
CalculiX 2.20 runs it at its own stable increment (it ignores the given increment in explicit
steps, and `DIRECT` there stops it at an increment of 0); ductile runs the same deck with
`DIRECT` added and that increment, so both take the same time steps over the same period; each
code's own stable step is printed. Fields only at the step's end (`*NODE FILE, FREQUENCY=`).
`ccx` runs with OMP_NUM_THREADS = all cores, `ductile-solve` with --backend cpu --threads all
cores (or --backend cuda). Printed: wall time of each, time steps, ns per element and time step,
the top corner's displacement in both.

    python3 bench/explicit/hex8_block_ccx.py [--n N[,N...]] [--steps S] [--full]
        [--ductile build/rel/solver/ductile-solve] [--backend cpu|cuda] [--threads T]
        [--keep DIR]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

E, NU, RHO, SIDE = 210000.0, 0.3, 7.85e-9, 100.0


def stable_dt(n):
    """ductile's stable step for the block's cubes: h / c with c the larger of the
    dilatational speed and sqrt(3 K / rho) (element/hex8_explicit.h), times 0.8."""
    h = SIDE / n
    lm2 = E * (1 - NU) / ((1 + NU) * (1 - 2 * NU))
    k3 = E / (1 - 2 * NU)
    return 0.8 * h / (max(lm2, k3) / RHO) ** 0.5


def deck(n, dt, T, full, direct, every, inc=None):
    h = SIDE / n
    lines = ["*HEADING", "hex8 block %d^3, explicit" % n, "*NODE, NSET=NALL"]
    nid = lambda i, j, k: 1 + i + (n + 1) * (j + (n + 1) * k)
    for k in range(n + 1):
        for j in range(n + 1):
            for i in range(n + 1):
                lines.append("%d, %.9g, %.9g, %.9g" % (nid(i, j, k), i * h, j * h, k * h))
    lines.append("*ELEMENT, TYPE=%s, ELSET=EALL" % ("C3D8" if full else "C3D8R"))
    e = 1
    for k in range(n):
        for j in range(n):
            for i in range(n):
                c = [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                     nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)]
                lines.append("%d, %s" % (e, ", ".join(map(str, c))))
                e += 1
    base = [nid(i, j, 0) for j in range(n + 1) for i in range(n + 1)]
    top = [nid(i, j, n) for j in range(n + 1) for i in range(n + 1)]
    for name, ids in (("BASE", base), ("TOP", top), ("CORNER", [nid(n, n, n)])):
        lines.append("*NSET, NSET=%s" % name)
        for s in range(0, len(ids), 16):
            lines.append(", ".join(map(str, ids[s:s + 16])))
    force = 1000.0 / len(top)  # 1 kN over the top
    lines += ["*MATERIAL, NAME=STEEL", "*ELASTIC", "%g, %g" % (E, NU), "*DENSITY", "%g" % RHO,
              "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL", "",
              "*AMPLITUDE, NAME=RAMP", "0., 0., %.12g, 1." % T,
              "*BOUNDARY", "BASE, 1, 3",
              "*STEP, INC=%d" % (inc or 10 * every), "*DYNAMIC, EXPLICIT%s" % (", DIRECT" if direct else ""),
              "%.12g, %.12g" % (dt, T),
              "*CLOAD, AMPLITUDE=RAMP", "TOP, 1, %.9g" % force,
              "*NODE FILE, FREQUENCY=%d" % every, "U",
              "*NODE PRINT, NSET=CORNER, FREQUENCY=%d" % every, "U",
              "*END STEP"]
    return "\n".join(lines) + "\n"


def ccx_increment(log):
    m = re.search(r"SELECTED time increment:\s*([0-9.eE+-]+)", log)
    return float(m.group(1)) if m else None


def last_corner_u(dat):
    """The last U line of the CORNER print in a results.dat (ductile's or ccx's)."""
    u = None
    with open(dat) as f:
        for line in f:
            p = line.split()
            if len(p) == 4 and re.match(r"^\d+$", p[0]):
                try:
                    u = [float(x) for x in p[1:]]
                except ValueError:
                    pass
    return u


def run(cmd, cwd, env=None):
    t0 = time.time()
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return time.time() - t0, r.returncode, r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", default="20")
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--ductile", default=os.path.join("build", "rel", "solver", "ductile-solve"))
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--keep")
    a = ap.parse_args()
    ductile = os.path.abspath(a.ductile)
    form = "C3D8" if a.full else "C3D8R"
    for n in map(int, a.n.split(",")):
        work = a.keep or tempfile.mkdtemp(prefix="xh8ccx_")
        os.makedirs(work, exist_ok=True)
        ne = n ** 3
        # CalculiX's own increment, printed before a run limited to one increment stops
        with open(os.path.join(work, "probe.inp"), "w") as f:
            f.write(deck(n, 1.0, 1.0, a.full, False, 1, inc=1))
        env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
        _, rc, out = run(["ccx", "-i", "probe"], work, env)
        dt = ccx_increment(out)
        if not dt:
            sys.exit("no increment in ccx's output:\n" + out[-2000:])
        T = dt * a.steps
        with open(os.path.join(work, "block.inp"), "w") as f:
            f.write(deck(n, dt, T, a.full, False, a.steps))
        with open(os.path.join(work, "block_direct.inp"), "w") as f:
            f.write(deck(n, dt, T, a.full, True, a.steps))
        t_c, rc, out = run(["ccx", "-i", "block"], work, env)
        if rc or "Job finished" not in out:
            sys.exit("ccx failed:\n" + out[-3000:])
        u_c = last_corner_u(os.path.join(work, "block.dat"))
        t_d, rc, out = run([ductile, "block_direct.inp", "-o", "out", "--backend", a.backend,
                            "--threads", str(a.threads), "--quiet"], work)
        if rc:
            sys.exit("ductile-solve failed:\n" + out)
        u_d = last_corner_u(os.path.join(work, "out", "results.dat"))
        print("%s block %d^3 (%d elements, %d nodes), %d steps of %.4g s (CalculiX's stable step; "
              "ductile's own: %.4g s):" % (form, n, ne, (n + 1) ** 3, a.steps, dt, stable_dt(n)))
        print("  ccx, OMP_NUM_THREADS=%d: %.2f s, %.1f ns per element and step; corner u %s" %
              (a.threads, t_c, t_c / (ne * a.steps) * 1e9, u_c))
        print("  ductile-solve --backend %s --threads %d: %.2f s, %.1f ns per element and step; "
              "corner u %s; ccx / ductile %.2f" %
              (a.backend, a.threads, t_d, t_d / (ne * a.steps) * 1e9, u_d, t_c / t_d))
        if not a.keep:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
