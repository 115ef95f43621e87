#!/usr/bin/env python3
"""Validate the output of test_io_output with an independent reader (stdlib only).

Usage: check_vtu.py <output dir>. Parses results.pvd and every VTU it lists (with the tests'
one VTU reader, tests/validation/vlib.py read_vtu_arrays, which also checks the appended
data's offsets and sizes), and checks the structure a VTK reader relies on: sizes, array
lengths, offsets, cell types, component names.
"""
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation"))
from vlib import read_vtu_arrays  # noqa: E402

VTK_NODES = {12: 8, 10: 4, 24: 10, 9: 4, 5: 3}


def fail(msg):
    print("check_vtu: " + msg, file=sys.stderr)
    sys.exit(1)


def check_vtu(path):
    root, arrays = read_vtu_arrays(path)

    def values(arr):
        return arrays[arr]

    if root.tag != "VTKFile" or root.get("type") != "UnstructuredGrid":
        fail(f"{path}: not an UnstructuredGrid VTKFile")
    piece = root.find("UnstructuredGrid/Piece")
    npts, ncells = int(piece.get("NumberOfPoints")), int(piece.get("NumberOfCells"))
    pts = piece.find("Points/DataArray")
    if len(values(pts)) != 3 * npts:
        fail(f"{path}: {len(values(pts))} point coordinates for {npts} points")
    cells = {a.get("Name"): [int(v) for v in values(a)] for a in piece.find("Cells")}
    offs, types, conn = cells["offsets"], cells["types"], cells["connectivity"]
    if len(offs) != ncells or len(types) != ncells or offs[-1] != len(conn):
        fail(f"{path}: cells arrays inconsistent")
    start = 0
    for c, (end, t) in enumerate(zip(offs, types)):
        if VTK_NODES.get(t) != end - start:
            fail(f"{path}: cell {c} type {t} has {end - start} nodes")
        if any(not 0 <= n < npts for n in conn[start:end]):
            fail(f"{path}: cell {c} refers to a missing point")
        start = end
    for section, count in (("PointData", npts), ("CellData", ncells)):
        for arr in piece.find(section):
            ncomp = int(arr.get("NumberOfComponents", "1"))
            vals = values(arr)
            if len(vals) != ncomp * count:
                fail(f"{path}: {section} {arr.get('Name')} has {len(vals)} values, want {ncomp * count}")
            [float(v) for v in vals]
            if ncomp == 6 and arr.get("ComponentName3") != "XY":
                fail(f"{path}: {arr.get('Name')} lacks Voigt component names")
    time = root.find("UnstructuredGrid/FieldData/DataArray[@Name='TIME']")
    if time is None:
        fail(f"{path}: no TIME field data")
    return values(time)[0]


def main():
    out = sys.argv[1]
    pvd = ET.parse(os.path.join(out, "results.pvd")).getroot()
    sets = pvd.findall("Collection/DataSet")
    if not sets:
        fail("results.pvd lists no data set")
    for ds in sets:
        t = check_vtu(os.path.join(out, ds.get("file")))
        if t != float(ds.get("timestep")):
            fail(f"{ds.get('file')}: TIME {t} but the collection says {ds.get('timestep')}")
    print(f"check_vtu: {len(sets)} VTU files ok")


main()
