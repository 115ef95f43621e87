"""Gmsh meshes and Abaqus/CalculiX decks through the API (docs/interop.md, docs/api.md):

- POST /v1/meshes with a .msh body (by Content-Type, ?format=msh, ?filename=, ?name=, sniffing):
  stored, validated by importing it (malformed -> 422 with file and line), format "msh";
  a JSON job without "mesh" on it runs to completion (like ductile-solve mesh.msh --job job.json)
- POST /v1/jobs with an .inp deck (application/x-abaqus-inp): runs to completion with the
  deck's title; a malformed deck -> 422 naming the client's file and the line, never a server
  path; *INCLUDE (any spelling) -> 422 and no file is read
- a mesh posted as a job or a deck posted as a mesh -> 415
- owner / owner_token / backend in the Job document, ?owner= filter; a second user's token"""
import os
import shutil
import subprocess
import tempfile

import dtserver
from dtserver import ROOT, started

DECKS = os.path.join(ROOT, "tests", "interop", "decks")
STEEL = [{"name": "steel", "elastic": {"E": 210000, "nu": 0.3}}]

# One hex8 (Gmsh 2.2 ASCII) with physical groups: volume "body", faces "fixed" (x=0), "loaded" (x=1).
CUBE_MSH = """$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
3
2 1 "fixed"
2 2 "loaded"
3 3 "body"
$EndPhysicalNames
$Nodes
8
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
5 0 0 1
6 1 0 1
7 1 1 1
8 0 1 1
$EndNodes
$Elements
3
1 3 2 1 1 1 4 8 5
2 3 2 2 2 2 3 7 6
3 5 2 3 1 1 2 3 4 5 6 7 8
$EndElements
"""


def job_on(mesh_id, vset, fixed="fixed", loaded="loaded", title="on a gmsh mesh"):
    return {"ductile": 1, "title": title, "mesh_id": mesh_id, "materials": STEEL,
            "sections": [{"element_set": vset, "material": "steel", "kind": "solid"}],
            "steps": [{"boundary": [{"node_set": fixed, "fixed": "all"}],
                       "loads": [{"type": "pressure", "surface": loaded, "value": 10}]}],
            "output": {"vtu": True}}


def no_server_paths(d, text):
    assert d.data_dir not in text and "/tmp/" not in text, f"a server path leaked: {text}"


def main(binary):
    work = tempfile.mkdtemp(prefix="dt-import-")
    try:
        with started(binary) as d:
            check_meshes(d, work)
            check_decks(d)
            check_owner(d)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_meshes(d, work):
    msh = CUBE_MSH.encode()
    # by content type (what the CLI and the Python client send)
    r = d.request("POST", "/v1/meshes?name=cube.msh", msh, {"Content-Type": "application/x-gmsh-msh"})
    assert r.status == 201, r
    m = r.json
    assert m["format"] == "msh" and m["dim"] == 3 and m["n_elements"] == 1 and m["n_nodes"] == 8, m
    assert os.path.exists(os.path.join(d.data_dir, "meshes", m["id"] + ".msh"))
    assert d.request("GET", f"/v1/meshes/{m['id']}").json["format"] == "msh"
    # ?format=, ?filename=, a generic type with the name's extension, sniffing (curl --data-binary)
    for path, headers in (("/v1/meshes?format=msh", {"Content-Type": "application/octet-stream"}),
                          ("/v1/meshes?filename=dir/cube.msh", {}),
                          ("/v1/meshes?name=cube.msh", {"Content-Type": "application/octet-stream"}),
                          ("/v1/meshes", {"Content-Type": "application/x-www-form-urlencoded"}),
                          ("/v1/meshes", {"Content-Type": "text/plain", "Content-Disposition": 'attachment; filename="c.msh"'})):
        r = d.request("POST", path, msh, headers)
        assert r.status == 201 and r.json["format"] == "msh", (path, headers, r)
    # JSON meshes are unchanged (format json)
    r = d.request("POST", "/v1/meshes?name=cube.json", dtserver.unit_cube()["mesh"])
    assert r.status == 201 and r.json["format"] == "json", r
    # malformed: 422 with the client's file name and the line, no server path
    bad = CUBE_MSH.replace("3 5 2 3 1 1 2 3 4 5 6 7 8", "3 5 2 3 1 1 2 3 4 5 6 7").encode()
    r = d.request("POST", "/v1/meshes?name=broken.msh", bad, {"Content-Type": "application/x-gmsh-msh"})
    assert r.status == 422 and r.json["error"]["code"] == "invalid_mesh", r
    e = r.json["error"]
    assert e["message"].startswith("broken.msh:") and e["details"]["line"] == 25 and e["details"]["file"] == "broken.msh", e
    no_server_paths(d, e["message"])
    print("ok: malformed .msh ->", e["message"])
    r = d.request("POST", "/v1/meshes?format=msh", b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n3\n1 0 0\n")
    assert r.status == 422 and r.json["error"]["details"]["line"] > 0, r
    assert r.json["error"]["message"].startswith("upload.msh:"), r
    assert d.request("POST", "/v1/meshes?format=stl", msh).status == 400
    r = d.request("POST", "/v1/meshes", open(os.path.join(DECKS, "hex8_elastic.inp"), "rb").read(),
                  {"Content-Type": "application/x-abaqus-inp"})
    assert r.status == 415 and r.json["error"]["code"] == "unsupported_media_type", r
    assert d.request("POST", "/v1/meshes?format=msh", b"").status == 400
    print("ok: .msh uploads by content type, format, file name and sniffing; errors")

    # a job on the Gmsh mesh runs to completion
    r = d.request("POST", "/v1/jobs", job_on(m["id"], "body"))
    assert r.status == 201, r
    j = d.wait_job(r.json["id"])
    assert j["state"] == "succeeded" and j["mesh_id"] == m["id"] and j["title"] == "on a gmsh mesh", j
    res = d.request("GET", f"/v1/jobs/{j['id']}/results").json
    assert res["increments"], res
    assert d.request("GET", f"/v1/jobs/{j['id']}/results/increments/1/vtu").status == 200
    # invalid jobs on it: a group that does not exist, a "mesh" as well -> 422 with the JSON path
    r = d.request("POST", "/v1/jobs", job_on(m["id"], "nope"))
    assert r.status == 422 and r.json["error"]["code"] == "invalid_job", r
    assert "nope" in r.json["error"]["message"] and r.json["error"]["message"].startswith("job: "), r.json
    no_server_paths(d, r.json["error"]["message"])
    print("ok: job on a bad group ->", r.json["error"]["message"])
    r = d.request("POST", "/v1/jobs", b"$MeshFormat\n", {"Content-Type": "application/x-gmsh-msh"})
    assert r.status == 415, r
    print("ok: a JSON job on an uploaded .msh runs to completion:", j["id"])

    # gmsh's own output (msh 4.1) of the interop bracket, when gmsh is installed
    gmsh = shutil.which("gmsh")
    if gmsh:
        out = os.path.join(work, "bracket.msh")
        subprocess.run([gmsh, "-3", os.path.join(ROOT, "tests", "interop", "bracket.geo"), "-format", "msh41",
                        "-o", out], check=True, capture_output=True, timeout=120)
        r = d.request("POST", "/v1/meshes?name=bracket.msh", open(out, "rb").read(),
                      {"Content-Type": "application/x-gmsh-msh"})
        assert r.status == 201 and r.json["n_elements"] > 10, r
        r = d.request("POST", "/v1/jobs", job_on(r.json["id"], "bracket", title="bracket"))
        assert r.status == 201, r
        j = d.wait_job(r.json["id"], timeout=120)
        assert j["state"] == "succeeded", j
        print("ok: gmsh msh41 bracket:", j["id"])
    else:
        print("note: gmsh not installed, bracket case skipped")


def check_decks(d):
    deck = open(os.path.join(DECKS, "hex8_elastic.inp"), "rb").read()
    # with field output too: the .frd, besides the print requests' results.dat
    deck_files = deck.replace(b"*END STEP", b"*NODE FILE\nU\n*EL FILE\nS\n*END STEP")
    r = d.request("POST", "/v1/jobs", deck_files, {"Content-Type": "application/x-abaqus-inp"})
    assert r.status == 201, r
    early = d.request("GET", f"/v1/jobs/{r.json['id']}/results/results.frd", check=False)
    assert early.status in (200, 409), early  # 409 job_active while it runs; it may be done already
    if early.status == 409:
        assert early.json["error"]["code"] == "job_active", early.json
    j = d.wait_job(r.json["id"], timeout=120)
    assert j["state"] == "succeeded", j
    frd = d.request("GET", f"/v1/jobs/{j['id']}/results/results.frd")
    assert frd.status == 200 and frd.body.startswith(b"    1C") and frd.body.endswith(b" 9999\n"), frd
    assert b" -4  DISP" in frd.body and b" -4  STRESS" in frd.body, frd.body[:300]
    assert frd.headers.get("content-disposition", "").find(j["id"] + ".frd") >= 0, frd.headers
    dat = d.request("GET", f"/v1/jobs/{j['id']}/results/results.dat")
    assert dat.status == 200 and b"displacements (vx,vy,vz) for set NALL" in dat.body, dat.body[:300]
    print("ok: a deck job's results.frd and results.dat:", len(frd.body), "and", len(dat.body), "bytes")
    r = d.request("POST", "/v1/jobs", deck, {"Content-Type": "application/x-abaqus-inp"})
    assert r.status == 201, r
    j = d.wait_job(r.json["id"], timeout=120)
    assert j["state"] == "succeeded", j
    assert j["title"].startswith("hex8 (C3D8) elastic cantilever"), j
    assert j["mesh_id"] is None and j["backend"] == "cpu", j
    assert os.path.exists(os.path.join(d.data_dir, "jobs", j["id"], "job.inp"))
    res = d.request("GET", f"/v1/jobs/{j['id']}/results").json
    assert res["increments"], res
    print("ok: deck runs to completion:", j["id"], j["title"])
    # other ways to say it is a deck: ?format=inp, ?filename=, sniffing
    for path, headers in (("/v1/jobs?format=inp", {"Content-Type": "application/octet-stream"}),
                          ("/v1/jobs?filename=cantilever.inp", {}),
                          ("/v1/jobs", {"Content-Type": "application/x-calculix-inp"}),
                          ("/v1/jobs", {})):
        r = d.request("POST", path, deck, headers)
        assert r.status == 201, (path, headers, r)
    # a C3D8R deck's warning becomes an info event
    # malformed deck: 422 with the line and the client's file name
    bad = b"*HEADING\nbad\n*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D8, ELSET=E\n1, 1, 2, 3\n"
    r = d.request("POST", "/v1/jobs?filename=/home/me/part.inp", bad, {"Content-Type": "application/x-abaqus-inp"})
    assert r.status == 422 and r.json["error"]["code"] == "invalid_job", r
    e = r.json["error"]
    assert e["message"].startswith("part.inp:") and e["details"]["file"] == "part.inp" and e["details"]["line"] > 0, e
    no_server_paths(d, e["message"])
    print("ok: malformed deck ->", e["message"])
    r = d.request("POST", "/v1/jobs", b"*HEADING\nx\n*FREQUENCY\n", {"Content-Type": "application/x-abaqus-inp"})
    assert r.status == 422 and r.json["error"]["details"]["line"] == 3 and "deck.inp:3:" in r.json["error"]["message"], r
    # *INCLUDE: refused whatever the spelling, before anything is read
    secret = os.path.join(d.data_dir, "admin.token")
    for inc in (f"*INCLUDE, INPUT={secret}", f"*include,input={secret}", f"  * Include , INPUT=../../admin.token",
                "*INCLUDE,\n INPUT=/etc/passwd", f"*INCLUDE, INPUT={DECKS}/hex8_elastic.inp"):
        body = ("*HEADING\nincluding\n** comment\n" + inc + "\n").encode()
        r = d.request("POST", "/v1/jobs", body, {"Content-Type": "application/x-abaqus-inp"})
        assert r.status == 422 and r.json["error"]["code"] == "invalid_job", (inc, r)
        e = r.json["error"]
        assert e["details"]["line"] == 4 and "*INCLUDE is not allowed" in e["message"], e
        assert d.token not in r.body.decode(), "the included file was read"
    # a NUL byte does not hide the next line's *INCLUDE
    r = d.request("POST", "/v1/jobs", b"*HEADING\nx\x00\n*INCLUDE, INPUT=/etc/passwd\n", {"Content-Type": "application/x-abaqus-inp"})
    assert r.status == 422 and "*INCLUDE" in r.json["error"]["message"], r
    print("ok: *INCLUDE ->", e["message"])
    # *SUBMODEL names a result file to read: refused in an upload too
    r = d.request("POST", "/v1/jobs", f"*HEADING\nx\n** c\n*SUBMODEL, TYPE=NODE, INPUT={secret}\n1\n".encode(),
                  {"Content-Type": "application/x-abaqus-inp"})
    assert r.status == 422 and r.json["error"]["details"]["line"] == 4, r
    assert "*SUBMODEL is not allowed" in r.json["error"]["message"], r.json
    assert d.token not in r.body.decode(), "the submodel's file was read"
    assert d.request("POST", "/v1/jobs?format=msh", deck).status == 400
    assert d.request("POST", "/v1/jobs?format=inp", b"").status == 400
    left = [x for x in os.listdir(os.path.join(d.data_dir, "jobs"))
            if d.request("GET", f"/v1/jobs/{x}").status == 404]
    assert not left, f"refused decks left directories: {left}"


def check_owner(d):
    r = d.cli("token", "create", "--name", "alice-laptop", "--user", "alice")
    assert r.returncode == 0, r.stderr
    alice = r.stdout.strip()
    j_admin = d.request("POST", "/v1/jobs", dtserver.unit_cube()).json
    assert j_admin["owner"] == "admin" and j_admin["owner_token"] == "admin (first start)", j_admin
    assert j_admin["backend"] is None or j_admin["state"] != "queued", j_admin
    r = d.request("POST", "/v1/jobs", dtserver.unit_cube(), token=alice)
    assert r.status == 201, r
    j_alice = r.json
    assert j_alice["owner"] == "alice" and j_alice["owner_token"] == "alice-laptop", j_alice
    mine = d.request("GET", "/v1/jobs?owner=alice").json["items"]
    assert [x["id"] for x in mine] == [j_alice["id"]], mine
    admins = d.request("GET", "/v1/jobs?owner=admin").json["items"]
    assert admins and all(x["owner"] == "admin" for x in admins), admins
    assert d.request("GET", "/v1/jobs?owner=nobody").json["items"] == []
    assert d.request("GET", "/v1/jobs?owner=").status == 400
    for jid in (j_admin["id"], j_alice["id"]):
        j = d.wait_job(jid)
        assert j["state"] == "succeeded" and j["backend"] == "cpu", j
    print("ok: owner, owner_token, ?owner=, backend")


if __name__ == "__main__":
    dtserver.run(main)
