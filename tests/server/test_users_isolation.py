"""Users and isolation: two users (alice, bob) and the admin on one daemon.

Every /v1 route of the spec that names a job or a mesh, with every method, is tried by bob on
alice's ids: each answers 404 with exactly the body of an id that does not exist (ids cannot be
probed), and alice's objects are unchanged afterwards; the admin reaches them. Lists show a user
only its own jobs and meshes (?owner= and ?mesh_id= of another user's give nothing), the admin
every user's with the owner. A user submits jobs only on its own meshes (another user's mesh is
422 mesh_not_found, as a missing one). The command line: admin user add [--admin] / list /
disable / enable; a disabled user's requests get 401 at once, its tokens work again once
enabled. Finally every /v1 route of the spec must have been tried across users."""
import json
import re

from dtserver import SPEC, run, started, unit_cube

UNKNOWN = {"job_id": "j-0123456789abcdef", "mesh_id": "m-0123456789abcdef", "n": "1"}


def add_user(d, name, admin=False):
    r = d.cli("admin", "user", "add", name, *(["--admin"] if admin else []))
    assert r.returncode == 0, r.stderr
    r = d.cli("token", "create", "--user", name, "--name", f"{name}-laptop")
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def job_on(mesh_id):
    job = unit_cube()
    del job["mesh"]
    job["mesh_id"] = mesh_id
    return job


def fill(tmpl, ids):
    return re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], tmpl)


def v1_routes():
    return sorted((m.upper(), p) for p, ops in SPEC["paths"].items() if p.startswith("/v1") for m in ops)


def main(binary):
    tried = set()
    with started(binary) as d:
        alice = add_user(d, "alice")
        bob = add_user(d, "bob")
        root = add_user(d, "root", admin=True)

        # The command line refuses a second user of the same name and lists roles.
        r = d.cli("admin", "user", "add", "alice")
        assert r.returncode != 0 and "exists" in r.stderr, r
        users = {u["name"]: u for u in json.loads(d.cli("admin", "user", "list").stdout)}
        assert users["admin"]["role"] == "admin" and users["root"]["role"] == "admin", users
        assert users["alice"]["role"] == "user" and users["alice"]["disabled_at"] is None, users
        assert users["alice"]["tokens"] == 1, users
        assert d.cli("admin", "user", "disable", "nobody").returncode != 0
        assert d.cli("admin", "user", "frobnicate").returncode == 64

        # Each user: a mesh and a finished job on it (results on disk).
        own = {}
        for name, tok in (("alice", alice), ("bob", bob)):
            r = d.request("POST", f"/v1/meshes?name={name}-cube", unit_cube()["mesh"], token=tok)
            assert r.status == 201 and r.json["owner"] == name, r
            mid = r.json["id"]
            r = d.request("POST", "/v1/jobs", job_on(mid), token=tok)
            assert r.status == 201 and r.json["owner"] == name and r.json["owner_token"] == f"{name}-laptop", r
            own[name] = {"mesh_id": mid, "job_id": r.json["id"], "n": "1"}
            tried.add(("POST", "/v1/meshes"))
        for o in own.values():
            assert d.wait_job(o["job_id"])["state"] == "succeeded"
        a_ids = own["alice"]

        # A user's job only on its own mesh: bob on alice's mesh is "no mesh", like a missing one.
        r = d.request("POST", "/v1/jobs", job_on(a_ids["mesh_id"]), token=bob)
        missing = d.request("POST", "/v1/jobs", job_on(UNKNOWN["mesh_id"]), token=bob)
        assert r.status == 422 and r.json["error"]["code"] == "mesh_not_found", r
        assert r.json["error"]["message"].replace(a_ids["mesh_id"], "M") == \
            missing.json["error"]["message"].replace(UNKNOWN["mesh_id"], "M"), (r, missing)
        assert r.json["error"]["details"] == missing.json["error"]["details"]
        # An admin may submit on any user's mesh (the job is the admin's).
        r = d.request("POST", "/v1/jobs", job_on(a_ids["mesh_id"]), token=root)
        assert r.status == 201 and r.json["owner"] == "root", r
        admin_job = r.json["id"]
        d.wait_job(admin_job)
        tried.add(("POST", "/v1/jobs"))

        # Every route with an id, every method: bob on alice's ids is the 404 of an unknown id.
        before = {k: d.request("GET", f"/v1/{k}s/{a_ids[k + '_id']}", token=alice).json for k in ("job", "mesh")}
        for method, tmpl in v1_routes():
            if "{" not in tmpl:
                continue
            for accept in ([None, "text/event-stream"] if tmpl.endswith("/events") else [None]):
                h = {"Accept": accept} if accept else None
                foreign = d.request(method, fill(tmpl, a_ids), headers=h, token=bob)
                unknown = d.request(method, fill(tmpl, UNKNOWN), headers=h, token=bob)
                assert foreign.status == 404, (method, tmpl, accept, foreign)
                assert foreign.json == unknown.json, (method, tmpl, accept, foreign, unknown)
                assert foreign.json["error"]["code"] == "not_found"
            # The owner and the admin reach it (DELETE is checked below, as it removes; the
            # stream after this loop).
            if method != "DELETE":
                for tok in (alice, root):
                    r = d.request(method, fill(tmpl, a_ids), token=tok)
                    assert r.status != 404 or r.json != unknown.json, (method, tmpl, r)
            tried.add((method, tmpl))
        after = {k: d.request("GET", f"/v1/{k}s/{a_ids[k + '_id']}", token=alice).json for k in ("job", "mesh")}
        assert before == after, (before, after)
        # The owner's stream replays its events; the admin's too.
        for tok in (alice, root):
            c = d.conn(30)
            c.request("GET", f"/v1/jobs/{a_ids['job_id']}/events",
                      headers={"Accept": "text/event-stream", "Authorization": "Bearer " + tok})
            body = c.getresponse().read().decode()
            c.close()
            assert "event: job.succeeded" in body, body[-300:]

        # Lists: own objects only; the admin sees all, each with its owner.
        def listed(path, tok):
            r = d.request("GET", path, token=tok)
            assert r.status == 200, r
            return r.json["items"]

        for name, tok in (("alice", alice), ("bob", bob)):
            jobs = listed("/v1/jobs", tok)
            assert [j["id"] for j in jobs] == [own[name]["job_id"]], (name, jobs)
            meshes = listed("/v1/meshes", tok)
            assert [(m["id"], m["owner"]) for m in meshes] == [(own[name]["mesh_id"], name)], (name, meshes)
        assert listed("/v1/jobs?owner=alice", bob) == []
        assert listed(f"/v1/jobs?mesh_id={a_ids['mesh_id']}", bob) == []
        assert [j["id"] for j in listed("/v1/jobs?owner=alice", root)] == [a_ids["job_id"]]
        assert [j["id"] for j in listed(f"/v1/jobs?mesh_id={a_ids['mesh_id']}&limit=1", root)] == [admin_job]
        for tok in (root, d.token):
            jobs = listed("/v1/jobs", tok)
            assert {(j["id"], j["owner"]) for j in jobs} == {(a_ids["job_id"], "alice"), (own["bob"]["job_id"], "bob"),
                                                             (admin_job, "root")}, jobs
            meshes = listed("/v1/meshes", tok)
            assert {(m["id"], m["owner"]) for m in meshes} == {(own["alice"]["mesh_id"], "alice"),
                                                               (own["bob"]["mesh_id"], "bob")}, meshes
        # Pages of a user's list stay within its own objects.
        for _ in range(2):
            d.request("POST", "/v1/meshes?name=more", unit_cube()["mesh"], token=bob)
        page = d.request("GET", "/v1/meshes?limit=2", token=bob).json
        rest = listed(f"/v1/meshes?limit=2&cursor={page['next_cursor']}", bob)
        assert len(page["items"]) == 2 and [m["id"] for m in rest] == [own["bob"]["mesh_id"]], (page, rest)
        assert len(listed("/v1/meshes", alice)) == 1
        tried.update({("GET", "/v1/jobs"), ("GET", "/v1/meshes")})

        # Health: every user sees the server's counts; idle workers name no job.
        for tok in (alice, bob, root):
            h = d.request("GET", "/v1/health", token=tok).json
            assert h["jobs"]["succeeded"] == 3 and all(w["job_id"] is None for w in h["workers"]), h
        tried.add(("GET", "/v1/health"))

        # The audit log is an admin's: a user's token gets 403, whatever it asks for; an admin
        # reads every user's changes.
        for tok in (alice, bob):
            r = d.request("GET", "/v1/audit?actor=alice", token=tok)
            assert r.status == 403 and r.json["error"]["code"] == "forbidden", r
        r = d.request("GET", "/v1/audit?action=job.submit", token=root)
        assert r.status == 200 and {"alice", "bob", "root"} <= {x["actor"] for x in r.json["items"]}, r
        tried.add(("GET", "/v1/audit"))

        # Deletes: bob cannot (404 above, nothing removed); alice and the admin can.
        assert d.request("DELETE", f"/v1/jobs/{a_ids['job_id']}", token=alice).status == 204
        assert d.request("DELETE", f"/v1/jobs/{admin_job}", token=root).status == 204
        assert d.request("DELETE", f"/v1/meshes/{a_ids['mesh_id']}", token=root).status == 204
        assert d.request("GET", f"/v1/meshes/{a_ids['mesh_id']}", token=alice).status == 404

        # Disable: alice's next request is 401; bob goes on; enable brings her token back.
        assert d.cli("admin", "user", "disable", "alice").returncode == 0
        assert d.cli("admin", "user", "disable", "alice").returncode != 0  # already
        for method, tmpl in v1_routes():
            r = d.request(method, fill(tmpl, own["bob"]), token=alice)
            assert r.status == 401 and r.json["error"]["code"] == "unauthorized", (method, tmpl, r)
        assert d.request("GET", "/v1/jobs", token=bob).status == 200
        r = d.cli("token", "create", "--user", "alice")
        assert r.returncode != 0 and "disabled" in r.stderr and not r.stdout.strip(), r
        users = {u["name"]: u for u in json.loads(d.cli("admin", "user", "list").stdout)}
        assert users["alice"]["disabled_at"] is not None and users["bob"]["disabled_at"] is None, users
        assert d.cli("admin", "user", "enable", "alice").returncode == 0
        assert d.request("GET", "/v1/jobs", token=alice).status == 200

    missing = set(v1_routes()) - tried
    assert not missing, f"routes not tried across users: {sorted(missing)}"


if __name__ == "__main__":
    run(main)
