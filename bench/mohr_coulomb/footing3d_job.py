#!/usr/bin/env python3
"""A smooth rigid square footing on Mohr-Coulomb soil in 3D (hex8): a job for timing the
Mohr-Coulomb consistent tangent at scale (docs/benchmarks.md).

Quarter model (symmetry planes x = 0 and y = 0): soil block L x L x H, an n x n x m hex8 mesh,
the footing a b x b square at the corner of the top face, its nodes pushed down by `depth`
(smooth: u_x, u_y free) in `incs` fixed increments; x = L and y = L rollers, bottom fixed.
The monitor gives the footing reaction (a quarter of it).

  python3 footing3d_job.py N M [PHI] > footing3d.json
"""
import json
import sys

n, mz = int(sys.argv[1]), int(sys.argv[2])
phi = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
L, H, b, c, E, nu = 3.0, 1.5, 0.5, 10.0, 1.0e4, 0.3
depth, incs = 0.01, 5

nid = lambda i, j, k: (k * (n + 1) + j) * (n + 1) + i + 1
nodes = [[nid(i, j, k), L * i / n, L * j / n, H * k / mz] for k in range(mz + 1) for j in range(n + 1)
         for i in range(n + 1)]
elems = []
for k in range(mz):
    for j in range(n):
        for i in range(n):
            elems.append([len(elems) + 1, nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                          nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)])
eps = 1e-9
grid = [(i, j, k) for k in range(mz + 1) for j in range(n + 1) for i in range(n + 1)]
sel = lambda f: [nid(i, j, k) for (i, j, k) in grid if f(L * i / n, L * j / n, H * k / mz)]
job = {
    "ductile": 1,
    "title": "square footing %dx%dx%d phi %g" % (n, n, mz, phi),
    "mesh": {
        "nodes": nodes,
        "elements": [{"type": "hex8", "connectivity": elems}],
        "node_sets": {
            "x0": sel(lambda x, y, z: x < eps), "y0": sel(lambda x, y, z: y < eps),
            "xL": sel(lambda x, y, z: x > L - eps), "yL": sel(lambda x, y, z: y > L - eps),
            "bottom": sel(lambda x, y, z: z < eps),
            "footing": sel(lambda x, y, z: z > H - eps and x <= b + eps and y <= b + eps),
        },
        "element_sets": {"soil": {"generate": [1, len(elems)]}},
    },
    "materials": [{"name": "soil", "elastic": {"E": E, "nu": nu},
                   "plastic": {"criterion": "mohr_coulomb", "cohesion": c, "friction_angle": phi}}],
    "sections": [{"element_set": "soil", "material": "soil", "kind": "solid"}],
    "steps": [{"name": "push", "increments": incs,
               "boundary": [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]},
                            {"node_set": "xL", "fixed": ["x"]}, {"node_set": "yL", "fixed": ["y"]},
                            {"node_set": "bottom", "fixed": "all"},
                            {"node_set": "footing", "displacement": {"z": -depth}}]}],
    "output": {"fields": ["U", "PEEQ"], "vtu": False, "every": 1000,
               "monitors": [{"name": "footing_force", "node_set": "footing", "quantity": "RF",
                             "component": "z"}]},
}
json.dump(job, sys.stdout)
