"""Admission before allocation (server/admission.h): a job or mesh upload is sized from its
text as it arrives and refused before anything is built from it, with the daemon's memory
measured (VmHWM, the peak resident size, of /proc/<pid>/status) against its idle size.

Before this, building came first and took about 19x a JSON job's text and 28x a JSON mesh's
(a 213 MB job was refused only after 71 s at 3.6 GB resident; a 177 MB mesh was stored at
4.5 GB). The uploads here are generated on the fly (an n x n x n hex8 box as a JSON job, a
JSON mesh, a Gmsh 4.1 file and a deck) and streamed in chunks:

- Past max_body_bytes (8 MiB here), each of the four formats gets 413 body_too_large while
  it arrives, its body never held in memory (spooled past 1 MiB); announced by Content-Length,
  before a byte of it is read.
- Over max_model_dofs or max_model_elements, 422 model_too_large while it arrives, naming the
  counts and the limits: a 120^3 box (1.7 million elements; 160 to 190 MiB in each format if
  sent whole) is refused by its DOFs after its first megabytes (a .msh on its $Nodes header),
  a 50^3 box by its elements, and a .msh whose header announces two billion nodes on that
  header, with 256 MiB more behind it. The daemon's peak resident memory stays within 300 MiB
  of its idle size (2 MiB in practice) and it serves the next request.
- A job on a stored mesh is sized from the stored mesh's file (model_too_large, mesh_id).
- A size whose floor of memory (dt_analysis_floor_bytes) exceeds max_job_bytes: 422
  does_not_fit before the model is built, with the counts, for a job and for a mesh.
- Medium uploads within the limits are stored and a job runs as before.
Assertions are on sizes and replies, never on times: the machine may be busy."""
import json
import select
import socket
import tempfile

from dtserver import remove_data_dir, run, started, unit_cube, validate

BODY_LIMIT = 8 << 20
MAX_DOFS, MAX_ELEMENTS, MAX_JOB_BYTES = 600000, 50000, 64 << 20
RSS_BOUND_MB = 300


def nid(n, i, j, k):
    return 1 + i + (n + 1) * (j + (n + 1) * k)


def hexes(n, k):
    """The elements of layer k: (id, 8 node ids)."""
    f = lambda a, b, c: nid(n, a, b, c)
    for j in range(n):
        for i in range(n):
            yield (1 + i + n * (j + n * k), f(i, j, k), f(i + 1, j, k), f(i + 1, j + 1, k), f(i, j + 1, k),
                   f(i, j, k + 1), f(i + 1, j, k + 1), f(i + 1, j + 1, k + 1), f(i, j + 1, k + 1))


def layer_nodes(n, k):
    return [(nid(n, i, j, k), i / n, j / n, k / n) for j in range(n + 1) for i in range(n + 1)]


JOB_HEAD = (b'{"ductile": 1, "materials": [{"name": "s", "elastic": {"E": 200000, "nu": 0.3}}], '
            b'"sections": [{"element_set": "all", "material": "s", "kind": "solid"}], '
            b'"steps": [{"name": "s1", "increments": 1, "boundary": [{"node_set": "z0", "fixed": ["x", "y", "z"]}]}], '
            b'"mesh": ')


def json_mesh(n, job=False):
    """The box as the job format's mesh object (or a whole job), one layer per piece."""
    if job:
        yield JOB_HEAD
    yield b'{"nodes": ['
    for k in range(n + 1):
        rows = ", ".join("[%d, %.6g, %.6g, %.6g]" % r for r in layer_nodes(n, k))
        yield (", " if k else "").encode() + rows.encode()
    yield b'], "elements": [{"type": "hex8", "connectivity": ['
    for k in range(n):
        rows = ", ".join("[%d, %d, %d, %d, %d, %d, %d, %d, %d]" % e for e in hexes(n, k))
        yield (", " if k else "").encode() + rows.encode()
    z0 = ", ".join(str(nid(n, i, j, 0)) for j in range(n + 1) for i in range(n + 1))
    yield b']}], "node_sets": {"z0": [' + z0.encode() + b']}, "element_sets": {"all": {"generate": [1, %d, 1]}}}' % n ** 3
    if job:
        yield b"}"


def gmsh(n):
    """The box as a Gmsh 4.1 ASCII file (its headers announce the counts first)."""
    nn, ne = (n + 1) ** 3, n ** 3
    yield b"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 %d 1 %d\n3 1 0 %d\n" % (nn, nn, nn)
    for k in range(n + 1):
        yield "".join("%d\n" % r[0] for r in layer_nodes(n, k)).encode()
    for k in range(n + 1):
        yield "".join("%.6g %.6g %.6g\n" % r[1:] for r in layer_nodes(n, k)).encode()
    yield b"$EndNodes\n$Elements\n1 %d 1 %d\n3 1 5 %d\n" % (ne, ne, ne)
    for k in range(n):
        yield "".join("%d %d %d %d %d %d %d %d %d\n" % e for e in hexes(n, k)).encode()
    yield b"$EndElements\n"


def deck(n):
    """The box as an Abaqus/CalculiX deck."""
    yield b"*HEADING\nbox\n*NODE\n"
    for k in range(n + 1):
        yield "".join("%d, %.6g, %.6g, %.6g\n" % r for r in layer_nodes(n, k)).encode()
    yield b"*ELEMENT, TYPE=C3D8, ELSET=ALL\n"
    for k in range(n):
        yield "".join("%d, %d, %d, %d, %d, %d, %d, %d, %d\n" % e for e in hexes(n, k)).encode()
    yield (b"*NSET, NSET=Z0, GENERATE\n1, %d, 1\n*MATERIAL, NAME=S\n*ELASTIC\n200000, 0.3\n"
           b"*SOLID SECTION, ELSET=ALL, MATERIAL=S\n*STEP\n*STATIC\n1., 1.\n*BOUNDARY\nZ0, 1, 3\n*END STEP\n"
           % (n + 1) ** 2)


# (what, route, Content-Type, generator of the box of side n)
KINDS = [("JSON job", "/v1/jobs", "application/json", lambda n: json_mesh(n, job=True)),
         ("JSON mesh", "/v1/meshes", "application/json", json_mesh),
         ("Gmsh mesh", "/v1/meshes", "application/x-gmsh-msh", gmsh),
         ("deck", "/v1/jobs", "application/x-abaqus-inp", deck)]


def memory_mb(d):
    """The daemon's resident and peak resident memory, MiB."""
    out = {}
    with open(f"/proc/{d.proc.pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    return out


def read_reply(s):
    """One reply (head and Content-Length body) from the socket."""
    out = b""
    s.settimeout(60)
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
        head, sep, body = out.partition(b"\r\n\r\n")
        if sep:
            lines = head.decode("latin-1").split("\r\n")
            h = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
            if len(body) >= int(h.get("content-length", 0)):
                return int(lines[0].split(" ")[1]), h, body
    raise AssertionError("no complete reply: %r" % out[:300])


def stream(d, route, ctype, pieces, most):
    """POST the pieces as a chunked body until the daemon answers (or all are sent); returns
    (status, error document, body bytes sent, whether all were sent). most: the bytes beyond
    which the daemon has read too much of a body it should have refused."""
    s = socket.create_connection(("127.0.0.1", d.port), timeout=60)
    s.sendall(f"POST {route} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {d.token}\r\n"
              f"Content-Type: {ctype}\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
    sent, complete = 0, True
    for piece in pieces:
        if select.select([s], [], [], 0)[0]:
            complete = False
            break
        assert sent < most, f"{route}: no answer after {sent} body bytes"
        try:
            s.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
        except OSError:  # the daemon answered and closed
            complete = False
            break
        sent += len(piece)
    if complete:
        s.sendall(b"0\r\n\r\n")
    status, h, body = read_reply(s)
    s.close()
    doc = json.loads(body)
    validate(doc, {"$ref": "#/components/schemas/Error"}, f"POST {route} {status}")
    return status, doc, sent, complete


def healthy(d):
    assert d.proc.poll() is None, "the daemon exited:\n" + d.read_log()[-3000:]
    assert d.request("GET", "/v1/health").json["status"] == "ok"


def bodies_over_limit(d):
    """413 while the body arrives, for each format; announced: before it is read."""
    idle = memory_mb(d)["VmRSS"]
    for what, route, ctype, gen in KINDS:
        status, doc, sent, complete = stream(d, route, ctype, gen(60), 256 << 20)
        assert status == 413 and not complete, (what, status, doc)
        assert doc["error"]["code"] == "body_too_large", (what, doc)
        assert doc["error"]["details"] == {"max_body_bytes": BODY_LIMIT}, (what, doc)
        healthy(d)
        s = socket.create_connection(("127.0.0.1", d.port), timeout=60)
        s.sendall(f"POST {route} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {d.token}\r\n"
                  f"Content-Type: {ctype}\r\nContent-Length: {BODY_LIMIT + 1}\r\n\r\n".encode())
        status, _, body = read_reply(s)  # answered with no byte of the body sent
        s.close()
        assert status == 413 and json.loads(body)["error"]["code"] == "body_too_large", (what, body)
        print(f"{what}: 413 after {sent >> 20} MiB of a chunked body; announced: 413 at once")
    peak = memory_mb(d)["VmHWM"]
    assert peak - idle < 64, f"bodies over the limit took {peak - idle:.0f} MiB"
    print(f"bodies over max_body_bytes: peak {peak:.0f} MiB, idle {idle:.0f} MiB")


def medium_uploads(d):
    """Uploads well within the limits are stored as before; returns the .msh mesh's id."""
    r = d.request("POST", "/v1/meshes?name=box40", b"".join(gmsh(40)), {"Content-Type": "application/x-gmsh-msh"})
    assert r.status == 201, r
    assert (r.json["n_nodes"], r.json["n_elements"]) == (41 ** 3, 40 ** 3), r.json
    r2 = d.request("POST", "/v1/meshes", b"".join(json_mesh(25)), {"Content-Type": "application/json"})
    assert r2.status == 201 and r2.json["n_elements"] == 25 ** 3, r2
    r3 = d.request("POST", "/v1/jobs", b"".join(deck(12)), {"Content-Type": "application/x-abaqus-inp"})
    assert r3.status == 201, r3
    d.wait_job(r3.json["id"], timeout=240)
    print(f"medium uploads stored: {len(b''.join(gmsh(40))) >> 20} MiB .msh (64000 hex8), "
          f"a JSON mesh of 15625 hex8, a deck of 1728 hex8 (job run)")
    return r.json["id"]


def check_too_large(what, doc, nodes=None, elements=None):
    assert doc["error"]["code"] == "model_too_large", (what, doc)
    det = doc["error"]["details"]
    assert det["max_model_dofs"] == MAX_DOFS and det["max_model_elements"] == MAX_ELEMENTS, (what, det)
    assert det["dofs"] > MAX_DOFS or det["elements"] > MAX_ELEMENTS, (what, det)
    if nodes is not None:
        assert det["nodes"] == nodes, (what, det)
    if elements is not None:
        assert det["elements"] == elements, (what, det)
    msg = doc["error"]["message"]
    assert "max_model_dofs = %d" % MAX_DOFS in msg and str(det["nodes"]) in msg, (what, msg)


def models_too_large(d, big_mesh):
    idle = memory_mb(d)["VmRSS"]
    for (what, route, ctype, gen), n in [(k, n) for n in (120, 50) for k in KINDS]:
        status, doc, sent, complete = stream(d, route, ctype, gen(n), 128 << 20)
        assert status == 422 and not complete, (what, status, doc)
        check_too_large(what, doc)
        assert "counted as they arrived" in doc["error"]["message"], doc
        det = doc["error"]["details"]
        if n == 50:  # 397953 DOFs: refused by its elements, whose count passes the limit
            assert det["dofs"] <= MAX_DOFS and det["elements"] > MAX_ELEMENTS, det
        peak = memory_mb(d)["VmHWM"]
        assert peak - idle < RSS_BOUND_MB, f"{what}: the daemon grew from {idle:.0f} to {peak:.0f} MiB"
        healthy(d)
        print(f"{what} of a {n}^3 box: 422 after {sent / 2 ** 20:.1f} MiB sent ({det['nodes']} nodes, "
              f"{det['elements']} elements counted); peak {peak:.0f} MiB, idle {idle:.0f} MiB")
    # A header that announces two billion nodes: refused on it, whatever follows.
    head = b"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2000000000 1 2000000000\n"
    status, doc, sent, complete = stream(d, "/v1/meshes", "application/x-gmsh-msh",
                                         [head] + [b"1\n" * 32768] * 4096, 128 << 20)
    assert status == 422 and not complete, (status, doc)
    check_too_large("header", doc, nodes=2000000000)
    healthy(d)
    # A job on a stored mesh of 64000 elements, stored under larger limits: sized from its file.
    job = unit_cube()
    del job["mesh"]
    job["mesh_id"] = big_mesh
    r = d.request("POST", "/v1/jobs", job)
    assert r.status == 422, r
    check_too_large("mesh_id", r.json, nodes=41 ** 3, elements=40 ** 3)
    assert big_mesh in r.json["error"]["message"], r.json
    peak = memory_mb(d)["VmHWM"]
    assert peak - idle < RSS_BOUND_MB, f"the daemon grew from {idle:.0f} to {peak:.0f} MiB"
    print(f"model limits: peak {peak:.0f} MiB over the refusals, idle {idle:.0f} MiB (bound: +{RSS_BOUND_MB})")


def floors_over_memory(d):
    """27000 hex8 elements hold at least 27000 x 8 points x 400 bytes: over max_job_bytes."""
    nodes, elements = 31 ** 3, 30 ** 3
    points = 8 * 50 * 8 * elements  # the integration points' state alone
    for route, gen, start in (("/v1/jobs", lambda: json_mesh(30, job=True), "the job does not fit"),
                              ("/v1/meshes", lambda: json_mesh(30), "no job on this mesh fits")):
        r = d.request("POST", route, b"".join(gen()), {"Content-Type": "application/json"})
        assert r.status == 422 and r.json["error"]["code"] == "does_not_fit", r
        det, msg = r.json["error"]["details"], r.json["error"]["message"]
        assert (det["nodes"], det["elements"], det["dofs"]) == (nodes, elements, 3 * nodes), det
        assert det["estimate_bytes"] > points > MAX_JOB_BYTES == det["limit_bytes"], det
        assert msg.startswith(start) and "before the model was built" in msg, msg
    print(f"floor of 27000 hex8 ({det['estimate_bytes']:.0f} bytes) over max_job_bytes: 422 does_not_fit, "
          "job and mesh")


def main(binary):
    data = tempfile.mkdtemp(prefix="ductiled-test-")
    try:
        with started(binary, {"DUCTILED_MAX_BODY_BYTES": str(BODY_LIMIT)}, data_dir=data) as d:
            bodies_over_limit(d)
            big_mesh = medium_uploads(d)
        env = {"DUCTILED_MAX_BODY_BYTES": str(1 << 30), "DUCTILED_MAX_MODEL_DOFS": str(MAX_DOFS),
               "DUCTILED_MAX_MODEL_ELEMENTS": str(MAX_ELEMENTS), "DUCTILED_MAX_JOB_BYTES": str(MAX_JOB_BYTES)}
        with started(binary, env, data_dir=data) as d:
            models_too_large(d, big_mesh)
            floors_over_memory(d)
            # and then a small job as before
            r = d.request("POST", "/v1/meshes", b"".join(json_mesh(10)), {"Content-Type": "application/json"})
            assert r.status == 201, r
            jid = d.request("POST", "/v1/jobs", unit_cube()).json["id"]
            assert d.wait_job(jid, timeout=120)["state"] == "succeeded"
    finally:
        remove_data_dir(data)


if __name__ == "__main__":
    run(main)
