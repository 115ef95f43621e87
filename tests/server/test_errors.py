"""The one mapping from a failure to a reply (server/README.md, "Errors"): what the client sees
when the store fails, next to what it sees for an id that names nothing.

- Unknown ids are answers, not failures: 404 not_found for a job, a mesh, a cancel, an
  increment; a job whose mesh_id names no mesh is 422 mesh_not_found with the JSON path.
- A store failure (a table of the running daemon's database renamed away under it) is 503
  store_unavailable on every route that reads or writes what is missing, in the error envelope,
  with a message that names neither SQL nor the table; the log has the cause (SQLite's message)
  with the request id and where it was raised. Authentication reads the store too: with the
  tokens table gone every /v1 route is 503, not 401. /metrics says it in text.
- A refused submission leaves no job directory behind, and once the table is back the same
  daemon answers as before (nothing was cached in a broken state) and stops cleanly."""
import os

import dtserver
from dtserver import run, started, unit_cube

UNKNOWN_JOB = "j-0123456789abcdef"
UNKNOWN_MESH = "m-0123456789abcdef"


def rename(d, old, new):
    d.sql(f"ALTER TABLE {old} RENAME TO {new}")


def error(r, status, code):
    assert r.status == status, r
    err = r.json["error"]
    assert err["code"] == code and err["message"], r
    return err


def check_unknown_ids(d, jid):
    for method, path in (("GET", f"/v1/jobs/{UNKNOWN_JOB}"), ("POST", f"/v1/jobs/{UNKNOWN_JOB}/cancel"),
                         ("DELETE", f"/v1/jobs/{UNKNOWN_JOB}"), ("GET", f"/v1/jobs/{UNKNOWN_JOB}/events"),
                         ("GET", f"/v1/meshes/{UNKNOWN_MESH}"), ("DELETE", f"/v1/meshes/{UNKNOWN_MESH}"),
                         ("GET", f"/v1/jobs/{jid}/results/increments/999")):
        err = error(d.request(method, path), 404, "not_found")
        assert err["details"] is None, (path, err)
    job = unit_cube()
    del job["mesh"]
    job["mesh_id"] = UNKNOWN_MESH
    err = error(d.request("POST", "/v1/jobs", job), 422, "mesh_not_found")
    assert err["details"] == {"path": "mesh_id"}, err


def job_dirs(d):
    return sorted(os.listdir(os.path.join(d.data_dir, "jobs")))


def check_store_failure(d, jid):
    dirs = job_dirs(d)
    rename(d, "jobs", "jobs_away")
    for method, path, body in (("GET", "/v1/jobs", None), ("GET", f"/v1/jobs/{jid}", None),
                               ("POST", f"/v1/jobs/{jid}/cancel", None), ("DELETE", f"/v1/jobs/{jid}", None),
                               ("GET", f"/v1/jobs/{jid}/results", None), ("GET", "/v1/health", None),
                               ("POST", "/v1/jobs", unit_cube())):
        r = d.request(method, path, body)
        err = error(r, 503, "store_unavailable")
        assert err["details"] is None, (path, err)
        text = err["message"].lower()
        # the message names the database (postgresql or sqlite), nothing of its SQL
        assert f"({dtserver.STORE})" in text, (path, err["message"])
        text = text.replace(f"({dtserver.STORE})", "")
        for leak in ("sql", "select", "table", "jobs_away", "no such", "database error"):
            assert leak not in text, (path, err["message"])
        req = r.headers["x-request-id"]
        logged = [line for line in d.read_log().splitlines() if f"req={req}" in line and "level=error" in line]
        # SQLite's words, or PostgreSQL's
        assert any(("no such table: jobs" in line or 'relation \\"jobs\\" does not exist' in line)
                   and "status=database" in line and "where=" in line for line in logged), (path, logged)
    assert job_dirs(d) == dirs, "a refused submission left its directory"
    m = d.request("GET", "/metrics", check=False)
    assert m.status == 503 and m.body == b"store unavailable\n", m
    rename(d, "jobs_away", "jobs")
    assert d.request("GET", f"/v1/jobs/{jid}").json["id"] == jid
    assert d.request("GET", "/v1/health").status == 200


def check_auth_store_failure(d):
    rename(d, "tokens", "tokens_away")
    error(d.request("GET", "/v1/jobs"), 503, "store_unavailable")
    error(d.request("GET", "/v1/jobs", token="dt_0123456789abcdef_" + "0" * 64), 503, "store_unavailable")
    # A token that cannot be one is refused before the store is asked.
    error(d.request("GET", "/v1/jobs", token="nonsense"), 401, "unauthorized")
    rename(d, "tokens_away", "tokens")
    assert d.request("GET", "/v1/jobs").status == 200


def main(binary):
    with started(binary) as d:
        r = d.request("POST", "/v1/jobs", unit_cube())
        assert r.status == 201, r
        jid = r.json["id"]
        assert d.wait_job(jid)["state"] == "succeeded"
        check_unknown_ids(d, jid)
        check_store_failure(d, jid)
        check_auth_store_failure(d)
        print("unknown ids: 404 / 422 mesh_not_found; store failures: 503 store_unavailable, cause in the log")


if __name__ == "__main__":
    run(main)
