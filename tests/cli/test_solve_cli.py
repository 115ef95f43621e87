#!/usr/bin/env python3
"""ductile-solve as a program: exit codes, messages naming the culprit, progress lines, outputs.

Reference: the contract in README.md (0 success, 1 invalid input, 2 no convergence, 64 usage)
and Kiran's unit cube ([Kiran2023, Sec. 3.2.1.1]): u_z(top) = 5.2727...e-3 after the third step.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation"))
from vlib import read_vtu  # noqa: E402  (the tests' one VTU reader: binary appended)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(solver, args, cwd):
    p = subprocess.run([solver] + args, cwd=cwd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check_hold(a, cube, tmp):
    """"hold" (CalculiX's *BOUNDARY, FIXED) keeps the displacement a step starts from. The unit
    cube pulled elastically to 400 MPa (u_z = 400 / 200e3 at the top), then a step that holds
    the top in z and removes the traction: the top stays at 2e-3 through its 4 increments (to
    1e-12; held at 0 it would be 0), and the reaction carries the 400 N the traction did."""
    with open(cube) as f:
        job = json.load(f)
    bc = job["steps"][0]["boundary"]
    job["materials"][0]["plastic"]["yield_stress"] = 1000.0
    job["steps"] = [
        {"name": "pull", "increments": 1, "boundary": bc,
         "loads": [{"type": "traction", "surface": "top", "value": [0, 0, 400]}]},
        {"name": "hold", "increments": 4, "boundary": bc + [{"node_set": "top", "hold": ["z"]}], "loads": []}]
    path = os.path.join(tmp, "hold.json")
    with open(path, "w") as f:
        json.dump(job, f)
    rc, out, err = run(a.solver, [path, "-o", "res_hold", "--backend", a.backend], tmp)
    check(rc == 0, f"hold: exit {rc}, {err!r}")
    if rc != 0:
        return
    with open(os.path.join(tmp, "res_hold", "history.csv")) as f:
        rows = list(csv.DictReader(f))
    uz = [float(r[k]) for r in rows for k in r if k.startswith("uz")]
    check(len(uz) == 5 and all(abs(u - 2e-3) <= 1e-12 for u in uz), f"hold: u_z {uz}, want 2e-3 throughout")
    last = read_vtu(os.path.join(tmp, "res_hold", "increment_0005.vtu"))["point"]
    rfz = sum(t[2] for t in last["RF"][4:8]) if "RF" in last else None  # nodes 5-8: the top
    check(rfz is not None and abs(abs(rfz) - 400.0) <= 1e-6 * 400, f"hold: total RF_z {rfz}, want +-400")
    job["steps"][1]["boundary"].append({"node_set": "top", "fixed": ["z"]})
    with open(path, "w") as f:
        json.dump(job, f)
    rc, out, err = run(a.solver, [path, "-o", "res_hold_bad", "--backend", a.backend], tmp)
    check(rc == 1 and "node 5: z is both held at its displacement and prescribed a value" in err,
          f"hold and fixed on one axis: exit {rc}, {err!r}")


def check_centrifugal(a, cube, tmp):
    """A centrifugal load: the unit cube [0, 1]^3 spun about the z axis (density 1e-3, omega 100)
    carries density omega^2 int r_perp dV = 10 (0.5, 0.5, 0): the reactions sum to its opposite,
    to 1e-9 (2 x 2 x 2 Gauss points integrate the linear r_perp exactly)."""
    with open(cube) as f:
        job = json.load(f)
    job["steps"] = [{"name": "spin", "increments": 1, "boundary": job["steps"][0]["boundary"],
                     "loads": [{"type": "centrifugal", "element_set": "all", "density": 1e-3, "omega": 100.0,
                                "axis_point": [0, 0, 0], "axis": [0, 0, 2]}]}]
    path = os.path.join(tmp, "spin.json")
    with open(path, "w") as f:
        json.dump(job, f)
    rc, out, err = run(a.solver, [path, "-o", "res_spin", "--backend", a.backend], tmp)
    check(rc == 0, f"centrifugal: exit {rc}, {err!r}")
    if rc != 0:
        return
    rf = read_vtu(os.path.join(tmp, "res_spin", "increment_0001.vtu"))["point"]["RF"]
    tot = [sum(t[k] for t in rf) for k in range(3)]
    check(all(abs(t - w) <= 1e-9 * 5 for t, w in zip(tot, (-5.0, -5.0, 0.0))),
          f"centrifugal: reactions sum to {tot}, want (-5, -5, 0)")
    job["steps"][0]["loads"][0]["axis"] = [0, 0, 0]
    with open(path, "w") as f:
        json.dump(job, f)
    rc, out, err = run(a.solver, [path, "-o", "res_spin_bad", "--backend", a.backend], tmp)
    check(rc == 1 and "steps[0].loads[0].axis: must not be zero" in err, f"zero axis: exit {rc}, {err!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--backend", default=os.environ.get("DUCTILE_BACKEND", "cpu"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cube = os.path.join(a.examples, "unit_cube.json")
        with open(cube) as f:
            job = json.load(f)
        job.setdefault("output", {})["points"] = True  # the integration-point file, checked below
        cube_points = os.path.join(tmp, "unit_cube_points.json")
        with open(cube_points, "w") as f:
            json.dump(job, f)
        rc, out, err = run(a.solver, [cube_points, "-o", "res", "--backend", a.backend], tmp)
        check(rc == 0, f"unit cube: exit {rc}, stderr {err!r}")
        check("step 3/3" in out and "converged" in out, "progress lines missing:\n" + out)
        # the time to read the job, and what was read (the unit cube: 8 nodes, 1 element)
        check(re.search(r"^read \S+unit_cube_points\.json in \d+\.\d\d s: 8 nodes, 1 elements$", out, re.M),
              "the read line is missing:\n" + out)
        check("newton  1" in out, "Newton iterations not printed")
        with open(os.path.join(tmp, "res", "summary.json")) as f:
            s = json.load(f)
        check(s["completed"] is True and s["n_increments"] == 3, f"summary: {s.get('message')}")
        # one linear solve per Newton correction; the median and the largest of their PCG counts
        nl = s["nonlinear"]
        check(nl["linear_solves"] == s["newton_iterations"] and
              0 < nl["pcg_per_solve_median"] <= nl["pcg_per_solve_max"] <= s["pcg_iterations"] and
              nl["pcg_per_solve_max"] * nl["linear_solves"] >= s["pcg_iterations"], f"nonlinear {nl}, {s}")
        with open(os.path.join(tmp, "res", "history.csv")) as f:
            rows = list(csv.DictReader(f))
        uz = [float(r[k]) for r in rows for k in r if k.startswith("uz")]
        expect = 600 / 200e3 + (600 - 450) / 66e3
        check(len(uz) == 3 and abs(uz[-1] - expect) <= 1e-8 * expect, f"u_z {uz} vs {expect}")
        check(os.path.exists(os.path.join(tmp, "res", "results.pvd")), "no results.pvd")
        # Raw integration-point values: uniform uniaxial state, PEEQ = (600 - 450) / H at all 8.
        pts = read_vtu(os.path.join(tmp, "res", "increment_0003_points.vtu"))["point"]
        arrays = {k: [x for t in pts[k] for x in t] for k in ("PEEQ", "S") if k in pts}
        peeq = arrays.get("PEEQ", [])
        check(len(peeq) == 8 and all(abs(p - 150 / 66e3) <= 1e-10 for p in peeq), f"point PEEQ {peeq}")
        szz = arrays.get("S", [0.0] * 48)[2::6]
        check(all(abs(v - 600.0) <= 1e-8 * 600 for v in szz), f"point sigma_zz {szz}")
        # Without output.points (the default) only the main VTU is written.
        rc, out, err = run(a.solver, [cube, "-o", "res_main", "--backend", a.backend], tmp)
        files = sorted(os.listdir(os.path.join(tmp, "res_main")))
        check(rc == 0 and "increment_0003.vtu" in files and not [f for f in files if f.endswith("_points.vtu")],
              f"default output: exit {rc}, files {files}")

        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"ductile": 1, "mesh": {"nodes": [[1, 0, 0, 0]], "elements": [\n'
                    '{"type": "hex9", "connectivity": [[1, 1, 1, 1, 1, 1, 1, 1, 1]]}]}}')
        rc, out, err = run(a.solver, [bad, "-o", "r2"], tmp)
        check(rc == 1, f"invalid job: exit {rc}")
        check("hex9" in err and "mesh.elements[0].type" in err, f"message does not name the field: {err!r}")

        rc, out, err = run(a.solver, [os.path.join(tmp, "missing.json"), "-o", "r3"], tmp)
        check(rc == 1 and "missing.json" in err, f"missing file: exit {rc}, {err!r}")

        rc, out, err = run(a.solver, [cube], tmp)
        check(rc == 64 and "-o" in err, f"no output dir: exit {rc}, {err!r}")
        rc, out, err = run(a.solver, [cube, "-o", "r4", "--backend", "gpu9"], tmp)
        check(rc != 0 and "unknown backend" in err, f"bad backend: exit {rc}, {err!r}")
        rc, out, err = run(a.solver, [cube, "-o", "r5", "--frobnicate"], tmp)
        check(rc == 64, f"unknown flag: exit {rc}")
        # A deck's *EL PRINT of a field its *NODE FILE / *EL FILE do not ask for is still tabled
        # (the fields a print needs are kept), and a deck without either writes no VTU and no
        # .frd; with one, the .frd is named after the deck, as ccx names it.
        deck = ("*NODE, NSET=NALL\n1, 0, 0, 0\n2, 1, 0, 0\n3, 1, 1, 0\n4, 0, 1, 0\n5, 0, 0, 1\n6, 1, 0, 1\n"
                "7, 1, 1, 1\n8, 0, 1, 1\n*ELEMENT, TYPE=C3D8, ELSET=EALL\n1, 1, 2, 3, 4, 5, 6, 7, 8\n"
                "*NSET, NSET=FIX\n1, 4, 5, 8\n*NSET, NSET=TIP\n2, 3, 6, 7\n"
                "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
                "*STEP\n*STATIC\n0.5, 1.\n*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 3, -1.\n"
                "*EL PRINT, ELSET=EALL\nS\n%s*END STEP\n")
        for name, files in (("deck_u", "*NODE FILE\nU\n"), ("deck_none", "")):
            with open(os.path.join(tmp, name + ".inp"), "w") as f:
                f.write(deck % files)
            rc, out, err = run(a.solver, [name + ".inp", "-o", name, "--backend", a.backend], tmp)
            with open(os.path.join(tmp, name, "results.dat")) as f:
                dat = f.read()
            rows = [l.split() for l in dat.split("stresses")[-1].splitlines()
                    if len(l.split()) == 8 and l.split()[0].isdigit()]
            vtus = [f for f in os.listdir(os.path.join(tmp, name)) if f.endswith(".vtu")]
            check(rc == 0 and len(rows) == 8 and any(abs(float(r[4])) > 0 for r in rows),
                  f"{name}: exit {rc}, *EL PRINT S rows {rows}")
            check(bool(vtus) == bool(files), f"{name}: VTU files {vtus}")
            frd = os.path.join(tmp, name, name + ".frd")
            check(os.path.exists(frd) == bool(files), f"{name}: {name}.frd exists: {os.path.exists(frd)}")
            check(bool(files) or "no *NODE FILE or *EL FILE" in err, f"{name}: no warning: {err!r}")
        # "auto" on the CPU backend: two_level from 20,000 DOFs (precond_kind.h); a 20 x 20 x 16
        # hex8 box has 22,491 DOFs.
        if a.backend == "cpu":
            nx, ny, nz = 20, 20, 16
            nid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)  # noqa: E731
            nodes = [[nid(i, j, k), float(i), float(j), float(k)]
                     for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
            conn = [[1 + i + nx * (j + ny * k)] + [nid(i + di, j + dj, k + dk) for dk in (0, 1)
                                                   for di, dj in ((0, 0), (1, 0), (1, 1), (0, 1))]
                    for k in range(nz) for j in range(ny) for i in range(nx)]
            box = {"ductile": 1, "title": "box for auto",
                   "mesh": {"nodes": nodes, "elements": [{"type": "hex8", "connectivity": conn}],
                            "node_sets": {"bottom": [nid(i, j, 0) for j in range(ny + 1) for i in range(nx + 1)],
                                          "top": [nid(i, j, nz) for j in range(ny + 1) for i in range(nx + 1)]},
                            "element_sets": {"all": [c[0] for c in conn]}},
                   "materials": [{"name": "steel", "elastic": {"E": 200000.0, "nu": 0.3}}],
                   "sections": [{"element_set": "all", "material": "steel", "kind": "solid"}],
                   "steps": [{"name": "pull", "increments": 1,
                              "boundary": [{"node_set": "bottom", "fixed": ["x", "y", "z"]},
                                           {"node_set": "top", "displacement": {"z": 0.01}}]}],
                   "output": {"vtu": False}}
            with open(os.path.join(tmp, "box.json"), "w") as f:
                json.dump(box, f)
            rc, out, err = run(a.solver, ["box.json", "-o", "res_box", "--backend", "cpu", "--threads", "2"], tmp)
            check(rc == 0 and "22491 DOFs" in out and "two_level preconditioner (auto: two_level for 3D models of at "
                  "least 20000 DOFs on this backend" in out, f"auto on the CPU backend: exit {rc}\n{out[-800:]}{err}")
        # --precond and --view: the run names the preconditioner, the view its hierarchy.
        rc, out, err = run(a.solver, [cube, "-o", "res_amg", "--backend", a.backend, "--precond", "amg", "--view"],
                           tmp)
        check(rc == 0, f"--precond amg --view: exit {rc}, {err!r}")
        check("amg preconditioner" in out, f"--precond amg not reported:\n{out}")
        check(f"backend {a.backend}" in err and "amg: 1 levels" in err, f"--view printed no hierarchy:\n{err}")
        rc, out, err = run(a.solver, [cube, "-o", "res_bad", "--precond", "multigrid"], tmp)
        check(rc != 0 and "unknown preconditioner 'multigrid'" in err, f"bad --precond: exit {rc}, {err!r}")
        check_hold(a, cube, tmp)
        check_centrifugal(a, cube, tmp)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
