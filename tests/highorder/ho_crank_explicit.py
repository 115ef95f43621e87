#!/usr/bin/env python3
"""ductile-hoexplicit --msh on the swept crankshaft of bench/explicit/crank.geo (issue 33).

gmsh meshes the .geo at test time with a coarser size factor (-setnumber sf, default 3: about a
tenth of the bench mesh's hexahedra) as binary msh4 (exit 77 without gmsh). Then:

  - P = 2, refine 1, 300 undamped steps, journal_ends fixed, pressure 1 on pin_top: exit 0,
    energy balance below 1e-9, the watched node (nearest pin_top's centroid) moved along the
    load's resultant (-y: the pressure pushes the pin towards the main axis) by more than 1e-9;
  - P = 1, refine 2, 60 steps: the same checks and 8 times the elements of the refine-1 mesh;
  - refusals, exit 1 with the reason: an unknown group (the file's groups listed), --pressure on
    the volume group, no --fix, the consistent mass with --gpus.

Usage: ho_crank_explicit.py --tool ductile-hoexplicit --geo crank.geo --work DIR [--sf 3] [-v]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

failures = 0


def expect(cond, msg):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + msg, file=sys.stderr)


def run(cmd, verbose):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if verbose:
        print(" ".join(cmd))
        print(p.stdout + p.stderr)
    return p


def check_run(tool, msh, extra, verbose):
    p = run([tool, "--msh", msh, "--fix", "journal_ends", "--pressure", "pin_top=1"] + extra,
            verbose)
    expect(p.returncode == 0, "%s: exit %d: %s" % (extra, p.returncode, p.stderr))
    bal = re.search(r"energy balance (\S+)", p.stdout)
    along = re.search(r"final \|u\| ([^,]+), along the load ([^,]+),", p.stdout)
    elems = re.search(r": P=\d+, (\d+) elements", p.stdout)
    expect(bal and float(bal.group(1)) < 1e-9, "%s: energy balance %s" %
           (extra, bal and bal.group(1)))
    expect(along and float(along.group(2)) > 1e-9, "%s: displacement along the load %s" %
           (extra, along and along.group(2)))
    print("%s: elements %s, balance %s, |u| %s, along the load %s" %
          (" ".join(extra), elems and elems.group(1), bal and bal.group(1),
           along and along.group(1), along and along.group(2)))
    return int(elems.group(1)) if elems else 0


def refuse(tool, args, frag, verbose):
    p = run([tool] + args, verbose)
    expect(p.returncode == 1 and frag in p.stderr,
           "%s: exit %d, wanted 1 with '%s': %s" % (args, p.returncode, frag, p.stderr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--geo", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sf", default="3")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    if shutil.which("gmsh") is None:
        print("gmsh is not on PATH: skipped")
        return 77
    os.makedirs(a.work, exist_ok=True)
    msh = os.path.join(a.work, "crank_sf%s.msh" % a.sf)
    g = run(["gmsh", "-3", "-format", "msh4", "-bin", "-setnumber", "sf", a.sf, "-o", msh,
             a.geo], False)
    if g.returncode != 0:
        print(g.stdout + g.stderr, file=sys.stderr)
        return 1
    n1 = check_run(a.tool, msh, ["--order", "2", "--steps", "300"], a.v)
    n2 = check_run(a.tool, msh, ["--order", "1", "--refine", "2", "--steps", "60"], a.v)
    expect(n2 == 8 * n1 and n1 > 0, "refine 2: %d elements, refine 1: %d" % (n2, n1))
    refuse(a.tool, ["--msh", msh, "--fix", "journal_end", "--pressure", "pin_top=1"],
           '--fix group "journal_end" is not a physical group of the file (it has: ', a.v)
    refuse(a.tool, ["--msh", msh, "--fix", "journal_ends", "--pressure", "crank=1"],
           '--pressure group "crank" has no faces', a.v)
    refuse(a.tool, ["--msh", msh, "--pressure", "pin_top=1"], "no fixed group", a.v)
    refuse(a.tool, ["--msh", msh, "--fix", "journal_ends", "--pressure", "pin_top=1", "--mass",
                    "consistent", "--gpus", "0"], "--gpus takes a lumped mass", a.v)
    if failures:
        print("%d failure(s)" % failures, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
