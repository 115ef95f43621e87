"""What an upload must be before it is stored (docs/api.md, Meshes and Jobs):

- Text that becomes part of a stored object is UTF-8: a mesh's ?name= (JSON and Gmsh uploads:
  400 invalid_parameter naming "name"), a Gmsh file's physical names (422 invalid_mesh with the
  line), every line of a deck but comments, the *HEADING included (422 invalid_job with the
  file and line), so no mesh or job object ever lacks its name or title and no deck is solved
  only to fail writing its summary. A UTF-8 name and heading are kept as they are.
- A Gmsh mesh gets the checks of a JSON mesh at upload: a non-finite coordinate names the node,
  a flat or folded element the element (Gmsh tags), 422 invalid_mesh; nothing is stored.
- A job without a title on a stored mesh is titled after the mesh (its name, else its id), never
  with a server path; a deck without *HEADING is untitled (null); the API's objects and the
  results name no path of the data directory."""
import os
import dtserver
from dtserver import ROOT, started
from test_import import CUBE_MSH, job_on

MSH = {"Content-Type": "application/x-gmsh-msh"}
INP = {"Content-Type": "application/x-abaqus-inp"}
DECK = open(os.path.join(ROOT, "tests", "interop", "decks", "hex8_elastic.inp"), "rb").read()


def main(binary):
    with started(binary) as d:
        check_mesh_names(d)
        check_physical_names(d)
        check_deck_text(d)
        check_msh_geometry(d)
        check_titles(d)


def refused(r, status, code):
    assert r.status == status and r.json["error"]["code"] == code, r
    return r.json["error"]


def stored_meshes(d):
    return int(d.sql("SELECT COUNT(*) FROM meshes")[0][0])


def check_mesh_names(d):
    mesh = dtserver.unit_cube()["mesh"]
    before = stored_meshes(d)
    # %E9 is Latin-1's e-acute, %C0%AF an overlong '/', %ED%A0%80 a UTF-16 surrogate
    for bad in ("caf%E9", "%C0%AF", "x%ED%A0%80"):
        e = refused(d.request("POST", f"/v1/meshes?name={bad}", mesh), 400, "invalid_parameter")
        assert e["details"] == {"parameter": "name"} and "UTF-8" in e["message"], e
        e = refused(d.request("POST", f"/v1/meshes?name={bad}", CUBE_MSH.encode(), MSH), 400,
                    "invalid_parameter")
        assert e["details"] == {"parameter": "name"}, e
    assert stored_meshes(d) == before, "a refused name left a mesh row"
    # UTF-8 names are kept, byte for byte, in the object and in the list
    for name, body, headers in (("caf\u00e9 \u2713", mesh, {}), ("b\u00fcgel.msh", CUBE_MSH.encode(), MSH)):
        r = d.request("POST", "/v1/meshes?name=" + "".join("%%%02X" % b for b in name.encode()), body, headers)
        assert r.status == 201 and r.json["name"] == name, r
        assert d.request("GET", f"/v1/meshes/{r.json['id']}").json["name"] == name
    names = [m["name"] for m in d.request("GET", "/v1/meshes").json["items"]]
    assert "caf\u00e9 \u2713" in names and "b\u00fcgel.msh" in names, names
    print("ok: mesh names must be UTF-8 (400 naming the parameter); UTF-8 names kept")


def check_physical_names(d):
    bad = CUBE_MSH.replace('"body"', '"b\xf6dy"').encode("latin-1")
    e = refused(d.request("POST", "/v1/meshes?name=part.msh", bad, MSH), 422, "invalid_mesh")
    assert e["details"] == {"path": "", "file": "part.msh", "line": 8}, e
    assert e["message"].startswith("part.msh:8: physical group 3 (dimension 3): byte 0xF6"), e
    good = CUBE_MSH.replace('"body"', '"k\u00f6rper"').encode()
    r = d.request("POST", "/v1/meshes?name=part.msh", good, MSH)
    assert r.status == 201, r
    r = d.request("POST", "/v1/jobs", job_on(r.json["id"], "k\u00f6rper"))
    assert r.status == 201, r
    j = d.wait_job(r.json["id"])
    assert j["state"] == "succeeded", j
    res = d.request("GET", f"/v1/jobs/{j['id']}/results").json
    assert "k\u00f6rper" in res["node_sets"], res["node_sets"].keys()
    print("ok: physical names must be UTF-8 (422 with the line); a UTF-8 group runs:", e["message"])


def check_deck_text(d):
    jobs = d.request("GET", "/v1/jobs?limit=1000").json["items"]
    heading = DECK.replace(b"elastic cantilever", b"poutre \xe9lastique", 1)
    e = refused(d.request("POST", "/v1/jobs?filename=poutre.inp", heading, INP), 422, "invalid_job")
    assert e["details"] == {"path": "", "file": "poutre.inp", "line": 2}, e
    assert e["message"].startswith("poutre.inp:2: byte 0xE9 at column 20 is not UTF-8"), e
    e = refused(d.request("POST", "/v1/jobs", DECK.replace(b"NSET=NALL", b"NSET=N\xc4LL", 1), INP), 422,
                "invalid_job")
    assert e["details"]["line"] == 3 and e["message"].startswith("deck.inp:3: byte 0xC4"), e
    assert d.request("GET", "/v1/jobs?limit=1000").json["items"] == jobs, "a refused deck was stored"
    # a Latin-1 comment is dropped unread; a UTF-8 heading is the title
    utf8 = b"** r\xe9sum\xe9 in Latin-1\n" + DECK.replace(b"elastic cantilever", "poutre \u00e9lastique".encode(), 1)
    r = d.request("POST", "/v1/jobs", utf8, INP)
    assert r.status == 201 and r.json["title"].startswith("hex8 (C3D8) poutre \u00e9lastique"), r
    j = d.wait_job(r.json["id"], timeout=120)
    assert j["state"] == "succeeded" and j["title"] == r.json["title"], j
    print("ok: deck lines must be UTF-8 (422 with file and line):", e["message"])


def check_msh_geometry(d):
    before = stored_meshes(d)
    nan = CUBE_MSH.replace("7 1 1 1", "7 nan 1 1")
    e = refused(d.request("POST", "/v1/meshes?name=nan.msh", nan.encode(), MSH), 422, "invalid_mesh")
    assert e["message"] == "nan.msh: node 7 has a non-finite coordinate", e
    assert e["details"]["file"] == "nan.msh", e
    flat = CUBE_MSH.replace("5 0 0 1\n6 1 0 1\n7 1 1 1\n8 0 1 1", "5 0 0 0\n6 1 0 0\n7 1 1 0\n8 0 1 0")
    e = refused(d.request("POST", "/v1/meshes?name=flat.msh", flat.encode(), MSH), 422, "invalid_mesh")
    assert e["message"].startswith("flat.msh: element 3 (hex8) is inverted or degenerate: det J = 0"), e
    # corner 7 pulled through the element past corner 5: folded whichever way it is turned
    folded = CUBE_MSH.replace("7 1 1 1", "7 -1 -1 1")
    e = refused(d.request("POST", "/v1/meshes?name=folded.msh", folded.encode(), MSH), 422, "invalid_mesh")
    assert e["message"].startswith("folded.msh: element 3 (hex8) is inverted or degenerate"), e
    assert stored_meshes(d) == before, "a refused mesh was stored"
    left = os.listdir(os.path.join(d.data_dir, "meshes"))
    assert len(left) == before, f"a refused mesh left its file: {left}"
    # an element the CAD left inverted is turned, as before: accepted
    inverted = CUBE_MSH.replace("3 5 2 3 1 1 2 3 4 5 6 7 8", "3 5 2 3 1 5 6 7 8 1 2 3 4")
    assert d.request("POST", "/v1/meshes?name=turned.msh", inverted.encode(), MSH).status == 201
    print("ok: Gmsh uploads get the JSON mesh's checks:", e["message"])


def no_data_dir(d, what, text):
    assert d.data_dir not in text, f"{what} names the data directory: {text[:600]}"


def check_titles(d):
    named = d.request("POST", "/v1/meshes?name=cube.msh", CUBE_MSH.encode(), MSH).json
    unnamed = d.request("POST", "/v1/meshes?format=msh", CUBE_MSH.encode()).json
    assert unnamed["name"] is None, unnamed
    json_mesh = d.request("POST", "/v1/meshes?name=cube.json", dtserver.unit_cube()["mesh"]).json
    json_job = dtserver.unit_cube()
    del json_job["mesh"], json_job["title"]
    json_job["mesh_id"] = json_mesh["id"]
    no_heading = DECK.split(b"\n", 2)[2]
    assert not no_heading.startswith(b"*HEADING"), no_heading[:40]
    cases = ((job_on(named["id"], "body", title=None), "cube.msh"),
             (job_on(unnamed["id"], "body", title=None), unnamed["id"]),
             (json_job, "cube.json"),
             (no_heading, None))
    for body, want in cases:
        if isinstance(body, dict) and "title" in body and body["title"] is None:
            del body["title"]
        r = d.request("POST", "/v1/jobs", body, INP if isinstance(body, bytes) else None)
        assert r.status == 201 and r.json["title"] == want, (want, r)
        no_data_dir(d, "the new job", r.body.decode())
        j = d.wait_job(r.json["id"], timeout=120)
        assert j["state"] == "succeeded" and j["title"] == want, j
        for path in (f"/v1/jobs/{j['id']}", f"/v1/jobs/{j['id']}/results", f"/v1/jobs/{j['id']}/events",
                     "/v1/jobs", "/v1/meshes"):
            no_data_dir(d, path, d.request("GET", path).body.decode())
        summary = d.request("GET", f"/v1/jobs/{j['id']}/results").json
        assert summary["title"] == (want or ""), summary["title"]
    print("ok: untitled jobs are called after their mesh (name, else id); no server path in titles")


if __name__ == "__main__":
    dtserver.run(main)
