#!/usr/bin/env python3
"""Displacement patch test on a distorted mesh (one script, --elem picks the element/formulation).

Reference: a general linear displacement field u = A x + b (all gradient components nonzero,
~1e-3) is prescribed on every boundary node of a small mesh whose interior nodes are moved at
random (fixed seed; every element stays valid; tet10, hex20 and wedge15 midside nodes at the
straight edge midpoints; quad8/quad9/quad16 nodes on each distorted quad4's bilinear map; the
wedges split each distorted hexahedron in two, so their axes are not parallel). A conforming
element that passes the patch test reproduces the field exactly:
  * interior displacements = A x + b          tolerance 1e-10 relative to max |u|
  * element-averaged stress (VTU CellData S) = C : sym(A), the constant analytic stress
                                              tolerance 1e-8 relative to max |sigma|
C is 3D isotropic elasticity (solid), plane strain (sigma_zz = lambda (e_xx + e_yy)) or plane
stress (sigma_zz = 0). Linear elastic material E = 200000, nu = 0.3.
Axisymmetric sections (x the radius, the mesh moved to 1 <= x <= 2) take the axisymmetric linear
field u_x = a x, u_y = c y + d instead (a, c, d ~1e-3, distinct): a general linear field is not
one (u_x = b y + e gives a hoop strain u_x / x that varies, and a shear u_y = f x a stress
sigma_xy that the ring does not balance without a body force, d(x sigma_xy)/(x dx) != 0). Its
strains are constant, eps = (a, c, a, 0, 0, 0) with eps_zz = u_x / x the hoop strain, and so is
the stress C : eps: the elements reproduce it exactly when the rule integrates the
x-weighted products exactly (quad4 2x2, quad8 3x3 and quad8r 2x2 on straight-edged elements:
degrees at most 3 per direction).
quad8r (CPE8R, CPS8R, CAX8R: quad8 with the 2x2 rule) passes on the same straight-edged
elements, as hex20r does.
The 20-node hexahedra pass with the reduced 2x2x2 rule too (hex20r, and hex20 in a "reduced"
section): on straight-edged (trilinear) geometry the rule integrates every int dN_a/dx dV
exactly (cofactors of degree (2,1,1), serendipity derivatives of degree (1,2,2)), which is what
a constant stress state needs. So do CalculiX's wedge rules on straight-edged wedges: the
cofactors of wedge6's map are of degree 1 in the triangle and 2 along the axis, and so are
their products with its reference gradients, which the centroid times 2 Gauss points
integrates; with wedge15's gradients the products are of degree 2 and 3, which the 3-point
triangle rule times 3 Gauss points integrates.
hex8r (CalculiX's C3D8R in static steps: one point, Flanagan and Belytschko's uniform gradients
and hourglass stiffness) passes on the distorted hexahedra: the uniform gradients reproduce a
linear field's strain exactly, and the hourglass vectors are orthogonal to every linear field,
so the hourglass forces vanish. (CalculiX 2.20's own C3D8R does not: its shape8hr.f keeps only
the z term of the hourglass vectors' projection, docs/interop.md.)
hex8i (C3D8I: hex8 with 9 condensed incompatible modes) passes too: Taylor's scale det J0 / det J
of the modes' gradients makes their integral over each element vanish, so a linear field leaves
them at 0. (CalculiX 2.20's C3D8I leaves the scale out and passes only on parallelepipeds.)
"""
import vlib

E, NU = 200000.0, 0.3
A3 = [[1.0e-3, 0.4e-3, -0.3e-3], [0.2e-3, -0.7e-3, 0.5e-3], [-0.6e-3, 0.3e-3, 0.8e-3]]
B3 = [1.0e-4, -2.0e-4, 3.0e-4]
A2 = [[1.0e-3, 0.4e-3], [-0.6e-3, -0.7e-3]]
B2 = [1.0e-4, -2.0e-4]
AXI = [[1.0e-3, 0.0], [0.0, -0.7e-3]]  # u_x = a x, u_y = c y + d
BAXI = [0.0, -2.0e-4]

CASES = {
    "hex8_full": ("hex8", "solid", "full"),
    "hex8_bbar": ("hex8", "solid", "bbar"),
    "hex8r": ("hex8r", "solid", "auto"),
    "hex8i": ("hex8i", "solid", "auto"),
    "tet4": ("tet4", "solid", "auto"),
    "tet10": ("tet10", "solid", "auto"),
    "hex20": ("hex20", "solid", "auto"),
    "hex20r": ("hex20r", "solid", "auto"),
    "hex20_reduced": ("hex20", "solid", "reduced"),
    "wedge6": ("wedge6", "solid", "auto"),
    "wedge15": ("wedge15", "solid", "auto"),
    "quad4_pe": ("quad4", "plane_strain", "auto"),
    "quad4_pe_full": ("quad4", "plane_strain", "full"),
    "quad4_ps": ("quad4", "plane_stress", "auto"),
    "tri3": ("tri3", "plane_strain", "auto"),
    "tri3_ps": ("tri3", "plane_stress", "auto"),
    "quad8_pe": ("quad8", "plane_strain", "auto"),
    "quad8r_pe": ("quad8r", "plane_strain", "auto"),
    "quad8r_ps": ("quad8r", "plane_stress", "auto"),
    "quad8_reduced": ("quad8", "plane_strain", "reduced"),
    "quad4_axi": ("quad4", "axisymmetric", "auto"),
    "quad8_axi": ("quad8", "axisymmetric", "auto"),
    "quad8r_axi": ("quad8r", "axisymmetric", "auto"),
    "quad9_pe": ("quad9", "plane_strain", "auto"),
    "quad16_pe": ("quad16", "plane_strain", "auto"),
    "quad16_ps": ("quad16", "plane_stress", "auto"),
}


def build_mesh(etype):
    if etype in ("hex8", "hex8r", "hex8i", "tet4", "tet10", "hex20", "hex20r", "wedge6", "wedge15"):
        n = 3
        base = vlib.box_tet4(n, n, n) if etype in ("tet4", "tet10") else vlib.box_hex8(n, n, n)
        bnd = base.boundary_nodes()
        vlib.distort(base, 0.2 / n, seed=12345, boundary=bnd)
        if etype in ("hex20", "hex20r"):
            return vlib.hex8_to_hex20(base, etype)
        if etype in ("wedge6", "wedge15"):
            w = vlib.hex8_to_wedge6(base)
            return vlib.wedge6_to_wedge15(w) if etype == "wedge15" else w
        return vlib.tet4_to_tet10(base) if etype == "tet10" else base
    n = 4
    base = vlib.rect_quad4(n, n)
    vlib.distort(base, 0.2 / n, seed=12345, boundary=base.boundary_nodes())
    if etype in ("quad8", "quad8r", "quad9", "quad16"):  # straight-sided: the bilinear map
        return vlib.quad_elevate(base, etype)
    return vlib.quad_to_tri3(base) if etype == "tri3" else base


def analytic_stress(kind):
    if kind == "solid":
        eps = [A3[0][0], A3[1][1], A3[2][2], A3[0][1] + A3[1][0], A3[0][2] + A3[2][0], A3[1][2] + A3[2][1]]
        return vlib.matvec(vlib.iso_stiffness(E, NU), eps)
    if kind == "axisymmetric":
        return vlib.matvec(vlib.iso_stiffness(E, NU), [AXI[0][0], AXI[1][1], AXI[0][0], 0.0, 0.0, 0.0])
    exx, eyy, gxy = A2[0][0], A2[1][1], A2[0][1] + A2[1][0]
    G = E / (2 * (1 + NU))
    if kind == "plane_strain":
        s = vlib.matvec(vlib.iso_stiffness(E, NU), [exx, eyy, 0.0, gxy, 0.0, 0.0])
        return s
    c = E / (1 - NU * NU)
    return [c * (exx + NU * eyy), c * (eyy + NU * exx), 0.0, G * gxy, 0.0, 0.0]


def main():
    args = vlib.parse_args(__doc__, lambda ap: ap.add_argument("--elem", required=True, choices=sorted(CASES)))
    etype, kind, form = CASES[args.elem]
    chk = vlib.Check("patch_" + args.elem)
    mesh = build_mesh(etype)
    dim = mesh.dim
    A, b = (A3, B3) if dim == 3 else (A2, B2)
    if kind == "axisymmetric":  # x is the radius: the mesh on 1 <= x <= 2
        mesh.nodes = [(x + 1.0, y) for x, y in mesh.nodes]
        A, b = AXI, BAXI
    for e, (t, conn) in enumerate(mesh.elems):
        if vlib.element_measure(mesh, t, conn) <= 0:
            chk.fail_now("test setup: element %d is inverted after distortion" % (e + 1))

    def exact(x):
        return [sum(A[i][k] * x[k] for k in range(dim)) + b[i] for i in range(dim)]

    bnd = mesh.boundary_nodes()
    axes = "xyz"[:dim]
    node_sets, bcs = {}, []
    for n in bnd:
        node_sets["b%d" % n] = [n]
        u = exact(mesh.nodes[n - 1])
        bcs.append({"node_set": "b%d" % n, "displacement": {axes[k]: u[k] for k in range(dim)}})
    if etype in ("hex8r", "hex8i"):  # the hex8 mesh's elements as hex8r or hex8i
        mesh.elems = [(etype, conn) for _, conn in mesh.elems]
    sec = {"element_set": "all", "material": "elastic", "kind": kind, "formulation": form}
    if dim == 2 and kind != "axisymmetric":
        sec["thickness"] = 0.5
    j = vlib.job(mesh, [vlib.material("elastic", E, NU)], [sec],
                 [{"name": "patch", "increments": 1, "boundary": bcs}],
                 node_sets=node_sets, solver=vlib.TIGHT_SOLVER)
    with vlib.TempDir(args.keep) as wd:
        res = vlib.run(args, j, wd, "patch")
        vlib.require_ok(chk, res, "patch job")
        v = res.vtu(-1)
    U = v["point"]["U"]
    umax = max(abs(c) for n in range(len(mesh.nodes)) for c in exact(mesh.nodes[n]))
    interior = sorted(set(range(1, len(mesh.nodes) + 1)) - set(bnd))
    chk.expect(len(interior) > 0, "test setup: no interior node")
    eu = max(abs(U[n - 1][k] - exact(mesh.nodes[n - 1])[k]) for n in interior for k in range(dim)) / umax
    chk.le("u_err_rel", eu, 1e-10)
    s_ex = analytic_stress(kind)
    smax = max(abs(c) for c in s_ex)
    S = v["cell"]["S"]
    chk.expect(len(S) == len(mesh.elems), "CellData S has %d cells, mesh has %d" % (len(S), len(mesh.elems)))
    es = max(abs(s[k] - s_ex[k]) for s in S for k in range(6)) / smax
    chk.le("sigma_err_rel", es, 1e-8)
    chk.record("interior_nodes", len(interior))
    chk.record("elements", len(mesh.elems))
    chk.finish()


if __name__ == "__main__":
    main()
