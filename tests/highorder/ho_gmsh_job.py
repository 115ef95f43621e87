#!/usr/bin/env python3
"""ductile-solve MESH.msh --job LOADS.json on order-P hexahedra (solver/highorder/ho_job.h).

The cantilever of data/ho_cantilever.geo ([0,4] x [0,1]^2, 8 x 2 x 2 hexahedra, clamped on
"root", J2 with linear hardening: E 200000, nu 0.3, yield 250, H 6600), meshed by gmsh at test
time (exit 77 without gmsh):

  - tip displaced by -0.05 in y (4 increments, plastic at the root): the order-P path at P = 1
    (--order 1) against ductile's hex8 path on the same mesh (section formulation "full"):
    root reaction, tip reaction and max |u| within 1e-6 relative, max PEEQ within 1e-6;
  - end traction -13.5 in y (86 % of the perfectly plastic limit, 4 increments): the tip's mean
    deflection at P = 2 (a gmsh order-2 file, the order-P path by itself) against a fine hex8
    reference (32 x 8 x 8 hexahedra): |P2 - fine| below a tenth of |P1 - fine|; the reaction
    balances the load to 1e-9;
  - elastic, pressure 10 on the end: the root reaction is 10 (1e-9) and the tip's mean u_x at
    P = 1 that of the hex8 path (1e-6);
  - refusals, exit 1 with the key named: a concentrated load, two steps, a B-bar section, ties,
    a Voce hardening.

With --gpu (a `gpu` test: data/ho_cantilever_p2.msh, gmsh's order-2 file of the same
cantilever, kept so the GPU machines need no gmsh): the end traction and the displaced tip at
P = 2 and P = 3 (--order 3) with --backend cpu and --backend cuda: the same increments and
Newton iterations per increment, max |u|, max PEEQ and the root reaction within 1e-9 relative,
"backend" "cuda" in summary.json; exit 77 when the cuda backend has no GPU.

Usage: ho_gmsh_job.py --solver ductile-solve --data DIR --work DIR [--gpu] [-v]
"""
import argparse
import copy
import json
import os
import shutil
import subprocess
import sys

JOB = {
    "ductile": 1, "title": "J2 cantilever",
    "materials": [{"name": "steel", "elastic": {"E": 200000, "nu": 0.3},
                   "plastic": {"yield_stress": 250,
                               "hardening": {"type": "linear", "modulus": 6600}}}],
    "sections": [{"element_set": "beam", "material": "steel", "kind": "solid",
                  "formulation": "full"}],
    "steps": [{"name": "bend", "increments": {"type": "fixed", "count": 4},
               "boundary": [{"node_set": "root", "fixed": "all"}], "loads": []}],
    "solver": {"newton": {"max_iterations": 30, "force_tolerance": 1e-10},
               "linear": {"tolerance": 1e-12}},
}

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL: " + msg)


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def gmsh(args, data, work, name, order, extra=()):
    out = os.path.join(work, name + ".msh")
    cmd = ["gmsh", "-3", "-order", str(order), "-format", "msh4", *extra, "-o", out,
           os.path.join(data, "ho_cantilever.geo")]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def solve(args, work, msh, job, name, extra=()):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump(job, f)
    out = os.path.join(work, "out_" + name)
    p = subprocess.run([args.solver, msh, "--job", path, "-o", out, "-q", *extra],
                       capture_output=True, text=True)
    if args.verbose:
        print(" ".join([args.solver, msh, "--job", path, *extra]) + "\n" + p.stdout + p.stderr)
    return p, out


def summary(args, work, msh, job, name, extra=()):
    p, out = solve(args, work, msh, job, name, extra)
    check(p.returncode == 0, "%s: exit %d: %s" % (name, p.returncode, p.stderr.strip()))
    if p.returncode != 0:
        return None
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def displaced(args, work, c1):
    job = copy.deepcopy(JOB)
    job["steps"][0]["boundary"].append({"node_set": "tip", "displacement": {"y": -0.05}})
    hex8 = summary(args, work, c1, job, "disp_hex8", ["--backend", "cpu"])
    p1 = summary(args, work, c1, job, "disp_p1", ["--order", "1"])
    if not hex8 or not p1:
        return
    check(p1["order"] == 1, "the order-P run has order %s" % p1.get("order"))
    for s in ("root", "tip"):
        a, b = p1["node_sets"][s]["RF"][1], hex8["node_sets"][s]["RF"][1]
        check(rel(a, b) <= 1e-6, "P = 1 reaction on %s %.12g, hex8 %.12g" % (s, a, b))
    check(rel(p1["max_u"], hex8["max_u"]) <= 1e-6,
          "P = 1 max |u| %.12g, hex8 %.12g" % (p1["max_u"], hex8["max_u"]))
    check(hex8["max_peeq"] > 0 and rel(p1["max_peeq"], hex8["max_peeq"]) <= 1e-6,
          "P = 1 max PEEQ %.12g, hex8 %.12g" % (p1["max_peeq"], hex8["max_peeq"]))
    print("displaced tip, P = 1 vs hex8: root RF %.12g / %.12g, max |u| %.12g / %.12g, "
          "max PEEQ %.12g / %.12g" % (p1["node_sets"]["root"]["RF"][1],
                                      hex8["node_sets"]["root"]["RF"][1], p1["max_u"],
                                      hex8["max_u"], p1["max_peeq"], hex8["max_peeq"]))


def loaded(args, work, c1, c2, fine):
    job = copy.deepcopy(JOB)
    job["steps"][0]["loads"] = [{"type": "traction", "surface": "tip", "value": [0, -13.5, 0]}]
    ref = summary(args, work, fine, job, "load_fine", ["--backend", "cpu"])
    p1 = summary(args, work, c1, job, "load_p1", ["--order", "1"])
    p2 = summary(args, work, c2, job, "load_p2")
    if not ref or not p1 or not p2:
        return
    check(p2["order"] == 2 and p2["file_order"] == 2, "the order-2 file ran at order %s"
          % p2.get("order"))
    t = {k: s["node_sets"]["tip"]["U_mean"][1] for k, s in (("fine", ref), ("p1", p1), ("p2", p2))}
    check(abs(t["p2"] - t["fine"]) < 0.1 * abs(t["p1"] - t["fine"]),
          "tip: P = 2 %.9g, P = 1 %.9g, fine hex8 %.9g" % (t["p2"], t["p1"], t["fine"]))
    check(abs(p2["node_sets"]["root"]["RF"][1] - 13.5) <= 1e-9 * 13.5,
          "P = 2 root reaction %.12g, load 13.5" % p2["node_sets"]["root"]["RF"][1])
    check(p2["max_peeq"] > 0, "P = 2 stays elastic")
    print("end traction: tip deflection P = 1 %.9g, P = 2 %.9g, fine hex8 %.9g; P = 2 max PEEQ "
          "%.6g" % (t["p1"], t["p2"], t["fine"], p2["max_peeq"]))


def pressed(args, work, c1):
    job = copy.deepcopy(JOB)
    del job["materials"][0]["plastic"]
    job["steps"][0]["loads"] = [{"type": "pressure", "surface": "tip", "value": 10}]
    hex8 = summary(args, work, c1, job, "press_hex8", ["--backend", "cpu"])
    p1 = summary(args, work, c1, job, "press_p1", ["--order", "1"])
    if not hex8 or not p1:
        return
    rx = p1["node_sets"]["root"]["RF"][0]
    check(abs(rx - 10.0) <= 1e-9 * 10.0, "pressure 10 on the unit end: root reaction %.12g" % rx)
    a, b = p1["node_sets"]["tip"]["U_mean"][0], hex8["node_sets"]["tip"]["U_mean"][0]
    check(rel(a, b) <= 1e-6, "pressure, P = 1 tip u_x %.12g, hex8 %.12g" % (a, b))
    print("pressure, elastic: root RF %.12g, tip u_x P = 1 %.12g, hex8 %.12g" % (rx, a, b))


def refusals(args, work, c2):
    cases = []
    j = copy.deepcopy(JOB)
    j["steps"][0]["loads"] = [{"type": "cload", "node_set": "tip", "value": [0, -1, 0]}]
    cases.append(("cload", j, ['steps[0].loads[0].type: "cload" is not supported on an order-P '
                              'mesh (pressure, traction)']))
    j = copy.deepcopy(JOB)
    j["steps"].append(copy.deepcopy(j["steps"][0]))
    cases.append(("two_steps", j, ["steps: 2 steps; an order-P mesh runs one static step"]))
    j = copy.deepcopy(JOB)
    j["sections"][0]["formulation"] = "bbar"
    cases.append(("bbar", j, ['sections[0].formulation: "bbar" is not supported']))
    j = copy.deepcopy(JOB)
    j["ties"] = []
    cases.append(("ties", j, ['ties: "ties" is not supported on an order-P mesh']))
    j = copy.deepcopy(JOB)
    j["materials"][0]["plastic"]["hardening"] = {"type": "voce", "modulus": 1}
    cases.append(("voce", j, ['hardening.type: "voce" is not supported']))
    for name, job, frags in cases:
        p, _ = solve(args, work, c2, job, "refuse_" + name)
        check(p.returncode == 1, "%s: exit %d, want 1 (%s)" % (name, p.returncode, p.stderr))
        for frag in frags:
            check(frag in p.stderr, "%s: message %r lacks %r" % (name, p.stderr.strip(), frag))
        if args.verbose:
            print(p.stderr.strip())


def backends_agree(args, work):
    """The order-P solve on the host and on the GPU (--gpu); 77 without a usable GPU."""
    msh = os.path.join(args.data, "ho_cantilever_p2.msh")
    traction = copy.deepcopy(JOB)
    traction["steps"][0]["loads"] = [{"type": "traction", "surface": "tip",
                                      "value": [0, -13.5, 0]}]
    disp = copy.deepcopy(JOB)
    disp["steps"][0]["boundary"].append({"node_set": "tip", "displacement": {"y": -0.05}})
    for name, job, extra in (("traction_p2", traction, []), ("disp_p2", disp, []),
                             ("traction_p3", traction, ["--order", "3"])):
        p, out = solve(args, work, msh, job, "gpu_" + name, ["--backend", "cuda", *extra])
        if p.returncode == 3 and "backend cuda" in p.stderr:
            print("no GPU: " + p.stderr.strip())
            return 77
        cpu = summary(args, work, msh, job, "cpu_" + name, ["--backend", "cpu", *extra])
        check(p.returncode == 0, "%s on the GPU: exit %d: %s" % (name, p.returncode,
                                                                 p.stderr.strip()))
        if p.returncode != 0 or not cpu:
            continue
        with open(os.path.join(out, "summary.json")) as f:
            gpu = json.load(f)
        check(gpu["backend"] == "cuda" and cpu["backend"] == "cpu",
              "%s: backends %s, %s" % (name, gpu["backend"], cpu["backend"]))
        ng = [r["newton_iterations"] for r in gpu["increments"]]
        nc = [r["newton_iterations"] for r in cpu["increments"]]
        check(ng == nc, "%s: Newton iterations per increment GPU %s, host %s" % (name, ng, nc))
        rg, rc = gpu["node_sets"]["root"]["RF"][1], cpu["node_sets"]["root"]["RF"][1]
        for what, a, b in (("max |u|", gpu["max_u"], cpu["max_u"]),
                           ("max PEEQ", gpu["max_peeq"], cpu["max_peeq"]), ("root RF", rg, rc)):
            check(rel(a, b) <= 1e-9, "%s: %s GPU %.15g, host %.15g" % (name, what, a, b))
        check(cpu["max_peeq"] > 0, "%s stays elastic" % name)
        print("%s: GPU against host: max |u| %.3g, max PEEQ %.3g, root RF %.3g relative; Newton %s, "
              "PCG %d (host %d)" % (name, rel(gpu["max_u"], cpu["max_u"]),
                                    rel(gpu["max_peeq"], cpu["max_peeq"]), rel(rg, rc), ng,
                                    gpu["pcg_iterations"], cpu["pcg_iterations"]))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.gpu:
        os.makedirs(args.work, exist_ok=True)
        rc = backends_agree(args, args.work)
        if failures:
            print("%d failure(s)" % len(failures))
            return 1
        return rc
    if shutil.which("gmsh") is None:
        print("gmsh is not on PATH: skipped")
        return 77
    os.makedirs(args.work, exist_ok=True)
    c1 = gmsh(args, args.data, args.work, "cantilever_p1", 1)
    c2 = gmsh(args, args.data, args.work, "cantilever_p2", 2)
    fine = gmsh(args, args.data, args.work, "cantilever_fine", 1,
                ["-setnumber", "nx", "32", "-setnumber", "ny", "8"])
    displaced(args, args.work, c1)
    loaded(args, args.work, c1, c2, fine)
    pressed(args, args.work, c1)
    refusals(args, args.work, c2)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
