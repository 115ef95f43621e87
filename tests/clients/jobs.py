"""Jobs for the client tests: an elastoplastic cantilever (hex8) whose root yields, so the
3D view shows a varying von Mises stress and PEEQ and the load–displacement curve bends."""
import copy
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def beam_job(nx=20, ny=2, nz=3, increments=20, traction=-11.0, length=10.0):
    """Cantilever length x 1 x 1 clamped at x = 0, shear traction on the tip (x = length):
    linear hardening J2 steel (the unit cube's material), yielding at the root from about 70%
    of the load; VTU, MISES and PEEQ every increment; monitors uz_tip and rz_root."""
    with open(os.path.join(ROOT, "examples", "unit_cube.json")) as f:
        base = json.load(f)

    def nid(i, j, k):
        return 1 + i + (nx + 1) * (j + (ny + 1) * k)
    nodes = [[nid(i, j, k), length * i / nx, j / ny, k / nz]
             for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
    conn, tip = [], []
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                e = len(conn) + 1
                conn.append([e, nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                             nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)])
                if i == nx - 1:
                    tip.append([e, "S4"])
    job = {
        "ductile": 1,
        "title": f"Plastic cantilever {nx}x{ny}x{nz} hex8, tip shear {abs(traction):g} MPa",
        "mesh": {"nodes": nodes, "elements": [{"type": "hex8", "connectivity": conn}],
                 "node_sets": {"root": [nid(0, j, k) for j in range(ny + 1) for k in range(nz + 1)],
                               "tip": [nid(nx, j, k) for j in range(ny + 1) for k in range(nz + 1)]},
                 "element_sets": {"beam": list(range(1, len(conn) + 1))},
                 "surfaces": {"tip": tip}},
        "materials": copy.deepcopy(base["materials"]),
        "sections": [{"element_set": "beam", "material": base["materials"][0]["name"], "kind": "solid"}],
        "steps": [{"name": "bend", "increments": increments,
                   "boundary": [{"node_set": "root", "fixed": "all"}],
                   "loads": [{"type": "traction", "surface": "tip", "value": [0, 0, traction]}]}],
        "output": {"fields": ["U", "RF", "S", "MISES", "PEEQ"], "vtu": True, "every": 1,
                   "monitors": [{"name": "uz_tip", "node_set": "tip", "quantity": "U", "component": "z"},
                                {"name": "rz_root", "node_set": "root", "quantity": "RF", "component": "z"}]},
    }
    return job


if __name__ == "__main__":
    import sys
    json.dump(beam_job(*[int(a) for a in sys.argv[1:]]), sys.stdout)
