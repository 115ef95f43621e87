#!/usr/bin/env python3
"""A smooth rigid strip footing on a Tresca / Mohr-Coulomb soil (plane strain): a job for
ductile-solve, to measure Mohr-Coulomb at scale on both backends and the limit pressure against
Prandtl's (2 + pi) c (phi = 0).

Half model (symmetry at x = 0): soil 0 <= x <= W, 0 <= y <= H, quad4 plane strain (B-bar), an
nx x ny uniform mesh; footing half-width b on the top face, its nodes pushed down by `depth`
(smooth: u_x free) in `incs` automatic increments; x = 0 and x = W rollers (u_x = 0), bottom
fixed. The footing reaction (monitor RF y of the footing nodes, per unit thickness, half model)
divided by b is the mean footing pressure.

  python3 footing_job.py NX NY [PHI] > footing.json
"""
import json
import sys

nx, ny = int(sys.argv[1]), int(sys.argv[2])
phi = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
W, H, b, c, E, nu = 5.0, 2.5, 0.5, 10.0, 1.0e4, 0.3
depth, incs = 0.05, 20

nodes, elems = [], []
nid = lambda i, j: j * (nx + 1) + i + 1
for j in range(ny + 1):
    for i in range(nx + 1):
        nodes.append([nid(i, j), W * i / nx, H * j / ny])
for j in range(ny):
    for i in range(nx):
        elems.append([j * nx + i + 1, nid(i, j), nid(i + 1, j), nid(i + 1, j + 1), nid(i, j + 1)])
eps = 1e-9
footing = [nid(i, ny) for i in range(nx + 1) if W * i / nx <= b + eps]
job = {
    "ductile": 1,
    "title": "strip footing %dx%d phi %g" % (nx, ny, phi),
    "mesh": {
        "nodes": nodes,
        "elements": [{"type": "quad4", "connectivity": elems}],
        "node_sets": {
            "left": [nid(0, j) for j in range(ny + 1)],
            "right": [nid(nx, j) for j in range(ny + 1)],
            "bottom": [nid(i, 0) for i in range(nx + 1)],
            "footing": footing,
        },
        "element_sets": {"soil": {"generate": [1, len(elems)]}},
    },
    "materials": [{"name": "soil", "elastic": {"E": E, "nu": nu},
                   "plastic": {"criterion": "mohr_coulomb", "cohesion": c, "friction_angle": phi}}],
    "sections": [{"element_set": "soil", "material": "soil", "kind": "plane_strain"}],
    "steps": [{"name": "push", "increments": {"type": "automatic", "initial": 1.0 / incs, "min": 1e-4,
                                               "max": 1.0 / incs},
               "boundary": [{"node_set": "left", "fixed": ["x"]}, {"node_set": "right", "fixed": ["x"]},
                            {"node_set": "bottom", "fixed": "all"},
                            {"node_set": "footing", "displacement": {"y": -depth}}]}],
    "output": {"fields": ["U", "RF", "PEEQ"], "vtu": False, "every": 1000,
               "monitors": [{"name": "footing_force", "node_set": "footing", "quantity": "RF",
                             "component": "y"}]},
}
json.dump(job, sys.stdout)
