"""A slender elastic cantilever for the default preconditioner ("auto"): 160 x 16 x 16 hex8 on a
10 x 1 x 1 beam (139,587 DOFs, so "auto" picks two_level), clamped at x = 0, a tip traction.
Writes beam_auto.json and beam_block_jacobi.json into the directory given (default: .);
run each with `ductile-solve JOB -o OUT` and compare OUT/summary.json (docs/benchmarks.md)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "validation"))
import vlib  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "."
m = vlib.box_hex8(160, 16, 16, 10.0, 1.0, 1.0)
fixed = m.node_ids(lambda x, y, z: x < 1e-9)
tip = m.faces(lambda x, y, z: x > 10.0 - 1e-9)
for pc in ["auto", "block_jacobi"]:
    j = vlib.job(m, [vlib.material()], [{"element_set": "all", "material": "mat", "kind": "solid"}],
                 [{"name": "bend", "increments": 1, "boundary": [{"node_set": "fixed", "fixed": "all"}],
                   "loads": [{"type": "traction", "surface": "tip", "value": [0, 0, -10.0]}]}],
                 node_sets={"fixed": fixed}, surfaces={"tip": tip},
                 solver={"linear": {"preconditioner": pc, "tolerance": 1e-10}},
                 output={"fields": ["U"], "vtu": False}, title="slender beam, " + pc)
    with open(os.path.join(out, "beam_%s.json" % pc), "w") as f:
        json.dump(j, f)
print(3 * len(m.nodes), "DOFs")
