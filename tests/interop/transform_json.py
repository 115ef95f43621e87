#!/usr/bin/env python3
"""The job format's "transforms" against the deck's *TRANSFORM: a hex8 cantilever whose end face
lies in a rectangular system turned 45 degrees about z (tests/interop/decks/hex8_transform_rect.inp,
its first step), with the end's local y held, local z prescribed and a local x force, written once
as the deck and once as a JSON job with the same nodes, elements and local conditions. Both write
CalculiX's .frd (global axes); their DISP blocks must agree to 1e-12 of the largest displacement,
and the tip must have moved along local z (the system is applied, not ignored). Then two jobs
that lower_transforms refuses: a nonzero value in a local direction that is no global axis, and a
cylindrical system whose axis runs through a node of its set, with their messages.
  transform_json.py --solver ductile-solve --decks tests/interop/decks --work DIR"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frd_compare import read_frd  # noqa: E402


def deck_mesh(text):
    """Nodes {id: [x, y, z]} and hex8 elements [[id, n1..n8]] of the deck's *NODE and *ELEMENT."""
    nodes, elems, block = {}, [], None
    for line in text.splitlines():
        if line.startswith("*"):
            block = line.split(",")[0].strip().upper()
            continue
        v = [x.strip() for x in line.split(",") if x.strip()]
        if block == "*NODE" and v:
            nodes[int(v[0])] = [float(x) for x in v[1:4]]
        elif block == "*ELEMENT" and v:
            elems.append([int(x) for x in v])
    return nodes, elems


def job(nodes, elems, transform, tip_bc):
    return {
        "ductile": 1, "title": "hex8 cantilever, end face in a local system",
        "mesh": {"nodes": [[i] + x for i, x in sorted(nodes.items())],
                 "elements": [{"type": "hex8", "connectivity": elems}],
                 "node_sets": {"fix": [1, 6, 11, 16], "tip": [5, 10, 15, 20]},
                 "element_sets": {"all": [e[0] for e in elems]}},
        "materials": [{"name": "steel", "elastic": {"E": 210000.0, "nu": 0.3}}],
        "sections": [{"element_set": "all", "material": "steel", "kind": "solid"}],
        "steps": [{"name": "load", "increments": 1,
                   "boundary": [{"node_set": "fix", "fixed": "all"}] + tip_bc,
                   "loads": [{"type": "force", "node_set": "tip", "value": [1000.0, 0, 0]}]}],
        "transforms": [transform],
        "solver": {"linear": {"tolerance": 1e-12}},
        "output": {"fields": ["U"], "frd": True, "vtu": False}}


def solve(solver, work, name, text):
    d = os.path.join(work, name)
    os.makedirs(d)
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([solver, name, "-o", "out", "--threads", "1"], cwd=d, capture_output=True, text=True,
                       timeout=300)
    return r, os.path.join(d, "out")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--decks", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    solver = os.path.abspath(a.solver)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    with open(os.path.join(a.decks, "hex8_transform_rect.inp")) as f:
        deck = f.read()
    first = deck[:deck.index("*END STEP") + len("*END STEP")] + "\n"
    first = first.replace("*END STEP", "*NODE FILE\nU\n*END STEP")
    nodes, elems = deck_mesh(deck)
    rect = {"node_set": "tip", "type": "rectangular", "a": [1.0, 1.0, 0.0], "b": [-1.0, 2.0, 0.0]}
    tip_bc = [{"node_set": "tip", "fixed": ["y"]}, {"node_set": "tip", "displacement": {"z": 0.002}}]
    fails = []

    def check(cond, what):
        print("%-80s %s" % (what, "ok" if cond else "FAIL"))
        if not cond:
            fails.append(what)

    rd, out_d = solve(solver, a.work, "deck.inp", first)
    rj, out_j = solve(solver, a.work, "job.json", json.dumps(job(nodes, elems, rect, tip_bc)))
    check(rd.returncode == 0 and rj.returncode == 0, "deck and job run (exit %d, %d) %s%s"
          % (rd.returncode, rj.returncode, rd.stderr[-300:], rj.stderr[-300:]))
    if not fails:
        ud = read_frd(os.path.join(out_d, "deck.frd"))["sets"][-1]["blocks"]["DISP"]
        uj = read_frd(os.path.join(out_j, "job.frd"))["sets"][-1]["blocks"]["DISP"]
        big = max(abs(x) for v in ud.values() for x in v)
        diff = max(abs(x - y) for n in ud for x, y in zip(ud[n], uj[n]))
        check(sorted(ud) == sorted(uj) and diff <= 1e-12 * big,
              "job's DISP = deck's DISP: largest difference %.2e of %.4g" % (diff, big))
        c = 1 / math.sqrt(2)
        tip = uj[5]
        local = [c * tip[0] + c * tip[1], -c * tip[0] + c * tip[1], tip[2]]
        check(abs(local[1]) < 1e-12 * big and abs(local[2] - 0.002) < 1e-12,
              "tip node 5 in the local axes: y %.2e (held), z %.6g (prescribed 0.002)" % (local[1], local[2]))
    oblique = [{"node_set": "tip", "displacement": {"y": 0.001}}]
    r, _ = solve(solver, a.work, "oblique.json", json.dumps(job(nodes, elems, rect, oblique)))
    check(r.returncode == 1 and "transforms: " in r.stderr and "not along a global axis" in r.stderr,
          "a nonzero value along an oblique local axis is refused: " + r.stderr.strip()[-160:])
    axis = {"node_set": "tip", "type": "cylindrical", "a": [4.0, 0.0, 0.0], "b": [4.0, 0.0, 1.0]}
    r, _ = solve(solver, a.work, "axis.json", json.dumps(job(nodes, elems, axis, tip_bc)))
    check(r.returncode == 1 and "transforms: " in r.stderr and "axis" in r.stderr,
          "a node on a cylindrical system's axis is refused: " + r.stderr.strip()[-160:])
    if fails:
        print("FAILED: " + "; ".join(fails))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
