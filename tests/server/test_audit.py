"""The audit log (server/audit.h, schema/migrations/005_audit.sql): who did what, and when.

- The first start records the admin user and its token, by the daemon (via daemon, actor
  ductiled).
- The command line's changes are recorded with the user running it as the actor (sudo's caller,
  SUDO_USER, when there is one) and the Unix user it runs as: user.add
  (also the user `token create --user` makes), token.create (owner: the token's user; its name
  in the details), user.disable, user.enable, token.revoke, store.backup (the file's full path,
  its size and schema version).
- The API's: job.submit, job.cancel and job.delete, each with the token's user as the actor, the
  token, the request id the reply carried, the client's address, the job's owner (an admin
  deleting alice's job: actor admin, owner alice) and the job's state before the change.
- Refused requests (409 job_finished, 404, 401) record nothing.
- GET /v1/audit is an admin's: a user's token gets 403 forbidden; an admin reads the records
  newest first, validated against the spec, filtered by action, actor and target, in pages that
  together are the whole log; bad parameters are 400. `ductiled admin audit` prints the same
  records with the same filters, and exits 64 for a bad command line.
- Each record is also an INFO line msg=audit of the daemon's log, with the request id."""
import json
import os
import pwd
import subprocess
import time

from dtserver import box_job, run, started, unit_cube


def audit(d, query="", token="admin"):
    r = d.request("GET", "/v1/audit" + query, token=token)
    assert r.status == 200, r
    return r.json


def cli_audit(d, *args):
    p = d.cli("admin", "audit", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def cli_ok(d, *args):
    p = d.cli(*args)
    assert p.returncode == 0, (args, p.stderr)
    return p.stdout.strip()


def main(binary):
    unix_user = pwd.getpwuid(os.geteuid()).pw_name
    actor = os.environ.get("SUDO_USER") or unix_user
    with started(binary) as d:
        first = cli_audit(d)
        assert [(r["action"], r["via"], r["actor"], r["target"]) for r in first] == [
            ("token.create", "daemon", "ductiled", d.token[3:19]), ("user.add", "daemon", "ductiled", "admin")], first
        assert first[0]["owner"] == "admin" and first[0]["details"] == {"name": "admin (first start)"}, first[0]

        cli_ok(d, "admin", "user", "add", "alice")
        alice = cli_ok(d, "token", "create", "--user", "alice", "--name", "laptop")
        bob = cli_ok(d, "token", "create", "--user", "bob")  # bob is made by token create
        cli_ok(d, "admin", "user", "disable", "bob")
        cli_ok(d, "admin", "user", "enable", "bob")
        cli_ok(d, "token", "revoke", bob[3:19])
        recs = audit(d)["items"]
        got = [(r["action"], r["target"], r["owner"], r["details"]) for r in recs[:7]]
        assert got == [("token.revoke", bob[3:19], "bob", {"name": "cli"}),
                       ("user.enable", "bob", None, None),
                       ("user.disable", "bob", None, None),
                       ("token.create", bob[3:19], "bob", {"name": "cli"}),
                       ("user.add", "bob", None, {"role": "user"}),
                       ("token.create", alice[3:19], "alice", {"name": "laptop"}),
                       ("user.add", "alice", None, {"role": "user"})], got
        for r in recs[:7]:
            assert r["via"] == "cli" and r["actor"] == actor and r["unix_user"] == unix_user, r
            assert r["token_id"] is None and r["request_id"] is None and r["address"] is None, r
        print(f"command line: {len(got)} records by {actor} as {unix_user}")

        sub = d.request("POST", "/v1/jobs", box_job(9, increments=(20, 20)), token=alice)
        assert sub.status == 201, sub
        jid = sub.json["id"]
        can = d.request("POST", f"/v1/jobs/{jid}/cancel", token=alice)
        assert can.status == 202, can
        state = d.wait_job(jid)["state"]
        assert state == "cancelled", state
        # refused: nothing recorded
        assert d.request("POST", f"/v1/jobs/{jid}/cancel", token=alice).status == 409
        assert d.request("DELETE", "/v1/jobs/j-0123456789abcdef", token=alice).status == 404
        assert d.request("DELETE", f"/v1/jobs/{jid}", token="dt_" + "0" * 16 + "_" + "0" * 64,
                         check=False).status == 401
        dele = d.request("DELETE", f"/v1/jobs/{jid}")
        assert dele.status == 204, dele

        mine = audit(d, f"?target={jid}")["items"]
        assert [r["action"] for r in mine] == ["job.delete", "job.cancel", "job.submit"], mine
        delete, cancel, submit = mine
        assert submit["seq"] < cancel["seq"] < delete["seq"]
        for r, resp, who, token in ((submit, sub, "alice", alice), (cancel, can, "alice", alice),
                                    (delete, dele, "admin", d.token)):
            assert r["via"] == "api" and r["actor"] == who and r["owner"] == "alice", r
            assert r["unix_user"] is None, r
            assert r["token_id"] == token[3:19] and r["address"] == "127.0.0.1", r
            assert r["request_id"] == resp.headers["x-request-id"], (r, resp.headers)
        assert submit["details"] == {"title": "box 9^3", "mesh_id": None}, submit
        assert cancel["details"]["state"] in ("queued", "running"), cancel
        assert delete["details"] == {"state": "cancelled"}, delete
        print(f"API: {jid} submitted and cancelled by alice, deleted by admin; refusals not recorded")

        backup = os.path.join(d.data_dir, "..", os.path.basename(d.data_dir) + "-backup.db")
        try:
            cli_ok(d, "admin", "backup", backup)
            b = audit(d, "?action=store.backup")["items"]
            assert len(b) == 1 and b[0]["target"] == os.path.realpath(backup), b
            assert b[0]["details"]["bytes"] == os.path.getsize(backup) and b[0]["details"]["schema_version"] >= 5, b
        finally:
            if os.path.exists(backup):
                os.unlink(backup)

        r = d.request("GET", "/v1/audit", token=alice)
        assert r.status == 403 and r.json["error"]["code"] == "forbidden", r
        assert d.request("GET", "/v1/audit?bogus=1").status == 400
        r = d.request("GET", "/v1/audit?action=")
        assert r.status == 400 and r.json["error"]["details"] == {"parameter": "action"}, r
        assert [x["target"] for x in audit(d, "?action=user.add")["items"]] == ["bob", "alice", "admin"]
        assert {x["action"] for x in audit(d, "?actor=alice")["items"]} == {"job.submit", "job.cancel"}
        everything = audit(d, "?limit=1000")["items"]
        paged, cursor = [], None
        while True:
            page = audit(d, "?limit=3" + (f"&cursor={cursor}" if cursor else ""))
            paged += page["items"]
            cursor = page["next_cursor"]
            if not cursor:
                break
        assert paged == everything and len(everything) == 13, (len(paged), len(everything))
        assert [x["seq"] for x in everything] == sorted((x["seq"] for x in everything), reverse=True)

        assert cli_audit(d, "--limit", "1000") == everything
        assert [x["target"] for x in cli_audit(d, "--action", "user.add", "--limit", "2")] == ["bob", "alice"]
        assert cli_audit(d, "--actor", "alice", "--target", jid) == [cancel, submit]
        assert d.cli("admin", "audit", "--limit", "0").returncode == 64
        assert d.cli("admin", "audit", "--color").returncode == 64
        # Run through sudo (sudo -u ductile ductiled ...): the actor is sudo's caller.
        p = subprocess.run([binary, "admin", "user", "add", "dave"], env={**d.env, "SUDO_USER": "carol"},
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, p.stderr
        r = cli_audit(d, "--limit", "1")[0]
        assert (r["action"], r["target"], r["actor"], r["unix_user"]) == ("user.add", "dave", "carol", unix_user), r
        print(f"GET /v1/audit and admin audit: {len(everything)} records, filters, pages, 403 for a user")

        t0 = time.time()
        while f"req={sub.headers['x-request-id']} msg=audit action=job.submit" not in d.read_log():
            assert time.time() - t0 < 10, "no audit line in the log"
            time.sleep(0.05)
        lines = [x for x in d.read_log().splitlines() if "msg=audit " in x]
        assert any("action=job.delete" in x and "actor=admin" in x and "owner=alice" in x
                   and f"target={jid}" in x for x in lines), lines
        print(f"the daemon's log has {len(lines)} audit lines of its own changes")


if __name__ == "__main__":
    run(main)
