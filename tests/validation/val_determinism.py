#!/usr/bin/env python3
"""Thread-count determinism: --threads 1 and --threads 2 give bit-identical results.

Jobs: the plastic cantilever load/unload job of val_unloading (3D hex8, 8 colours) and the
thick cylinder of val_cylinder up to 0.9 p_L (2D quad4, automatic increments, plastic).
Reference: the --threads 1 run. Tolerance: zero: summary.json (less its "timings" object),
history.csv and every increment_NNNN.vtu must be byte-identical.
"""
import json
import os

import val_cylinder
import val_unloading
import vlib


def cylinder_job():
    import math
    m = val_cylinder.annulus()
    rad = lambda x, y: math.hypot(x, y)
    ns = {"x0": m.node_ids(lambda x, y: x == 0.0), "y0": m.node_ids(lambda x, y: y == 0.0)}
    surf = {"inner": m.faces(lambda x, y: abs(rad(x, y) - val_cylinder.A_IN) < 1e-9)}
    bc = [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]}]
    steps = [{"name": "p090", "increments": {"type": "automatic", "initial": 0.25, "min": 1e-3, "max": 0.5},
              "boundary": bc, "loads": [{"type": "pressure", "surface": "inner", "value": 0.9 * val_cylinder.P_L}]}]
    mat = vlib.material("steel", val_cylinder.E, val_cylinder.NU,
                        {"yield_stress": val_cylinder.SY, "hardening": {"type": "perfect"}})
    return vlib.job(m, [mat], [{"element_set": "all", "material": "steel", "kind": "plane_strain"}], steps,
                    node_sets=ns, surfaces=surf)


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("determinism")
    jobs = {"unloading": val_unloading.build()[0], "cylinder": cylinder_job()}
    with vlib.TempDir(args.keep) as wd:
        for name, j in jobs.items():
            r1 = vlib.run(args, j, wd, name + "_t1", threads=1)
            r2 = vlib.run(args, j, wd, name + "_t2", threads=2)
            vlib.require_ok(chk, r1, name + " --threads 1")
            vlib.require_ok(chk, r2, name + " --threads 2")
            s1, s2 = dict(r1.summary), dict(r2.summary)
            s1.pop("timings", None)
            s2.pop("timings", None)
            chk.expect(json.dumps(s1, sort_keys=True) == json.dumps(s2, sort_keys=True),
                       "%s: summary.json differs between 1 and 2 threads" % name)
            files = ["history.csv"] + r1.vtu_files()
            chk.expect(r1.vtu_files() == r2.vtu_files(), "%s: different VTU file lists" % name)
            ndiff = 0
            for f in files:
                b1 = open(os.path.join(r1.outdir, f), "rb").read()
                b2 = open(os.path.join(r2.outdir, f), "rb").read()
                if b1 != b2:
                    ndiff += 1
                    chk.failures.append("%s: %s differs between 1 and 2 threads" % (name, f))
            chk.record(name + "_files_compared", len(files))
            chk.record(name + "_files_differing", ndiff)
            chk.record(name + "_plastic_points", int(r1.history[-1 if name == "cylinder" else 3]["plastic_points"]))
    chk.finish()


if __name__ == "__main__":
    main()
