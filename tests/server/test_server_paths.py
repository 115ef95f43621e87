"""No reply names the data directory (docs/api.md, Conventions): a shared daemon's users must not
learn where it keeps its files. The daemon's log has the full paths.

- A job whose files cannot be written or read fails with a message that names the file
  relative to the job's attempt directory ("out", "checkpoint.ckpt"), in the job object, its job.failed event (polled
  and streamed) and the job list. Provoked by putting a file where the job's output directory
  goes, and a directory where its checkpoint goes, while it waits behind a slow job (the test
  hook test_iteration_delay_ms).
- An upload that cannot be stored (a file where meshes/ or jobs/ should be) is 507
  insufficient_storage without a path; so is the 404 of a URL that quotes the data directory.
- The log names each failed file by its full path."""
import os
import shutil

import dtserver
from dtserver import box_job, started, unit_cube


def no_data_dir(d, what, text):
    assert d.data_dir not in text, f"{what} names the data directory: {text[:800]}"


def main(binary):
    with started(binary, {"DUCTILED_TEST_ITERATION_DELAY_MS": "100"}) as d:
        check_job_failures(d)
        check_upload_failures(d)


def queued_behind_slow_job(d, n):
    slow = d.request("POST", "/v1/jobs", box_job(3)).json
    d.wait_job(slow["id"], states=("running",))
    ids = [d.request("POST", "/v1/jobs", unit_cube()).json["id"] for _ in range(n)]
    for jid in ids:
        assert d.request("GET", f"/v1/jobs/{jid}").json["state"] == "queued"
    return slow["id"], ids


def check_job_failures(d):
    slow, (no_out, no_ckpt) = queued_behind_slow_job(d, 2)
    out = os.path.join(dtserver.attempt_dir(d.data_dir, no_out, 1), "out")
    assert not os.path.exists(out), out
    os.makedirs(os.path.dirname(out))
    open(out, "w").close()  # a file where the job's (first attempt's) output directory goes
    ckpt = os.path.join(dtserver.attempt_dir(d.data_dir, no_ckpt, 1), "checkpoint.ckpt")
    os.makedirs(ckpt)  # a directory where the job's checkpoint goes
    d.request("POST", f"/v1/jobs/{slow}/cancel")
    for jid, file in ((no_out, "'out'"), (no_ckpt, "'checkpoint.ckpt'")):
        j = d.wait_job(jid)
        err = j["error"]
        assert j["state"] == "failed" and file in err["message"], j
        assert err["code"] == "io" or jid == no_ckpt, j  # the directory reads as a foreign checkpoint
        no_data_dir(d, "the job", d.request("GET", f"/v1/jobs/{jid}").body.decode())
        events, done = d.poll_events(jid)
        assert done and events[-1]["type"] == "job.failed", events
        assert events[-1]["data"]["message"] == err["message"], events[-1]
        no_data_dir(d, "the events", d.request("GET", f"/v1/jobs/{jid}/events").body.decode())
        no_data_dir(d, "the event stream", repr(d.sse(jid)))
        print("ok: job", jid, "failed with", repr(err["message"]))
    no_data_dir(d, "the job list", d.request("GET", "/v1/jobs").body.decode())
    log = d.read_log()
    assert out in log and ckpt in log, "the log should name the failed files in full"


def check_upload_failures(d):
    for sub, path, body in (("meshes", "/v1/meshes?name=m", unit_cube()["mesh"]), ("jobs", "/v1/jobs", unit_cube())):
        real = os.path.join(d.data_dir, sub)
        os.rename(real, real + ".away")
        open(real, "w").close()
        try:
            r = d.request("POST", path, body)
        finally:
            os.unlink(real)
            os.rename(real + ".away", real)
        assert r.status == 507 and r.json["error"]["code"] == "insufficient_storage", r
        no_data_dir(d, f"the 507 of {path}", r.body.decode())
        req = r.headers["x-request-id"]
        assert any(f"req={req}" in line and real in line for line in d.read_log().splitlines()), \
            f"the log should name {real}"
    r = d.request("GET", "/v1/x" + d.data_dir)
    assert r.status == 404, r
    no_data_dir(d, "a 404", r.body.decode())
    print("ok: 507 and 404 replies name no path; the log does")


if __name__ == "__main__":
    dtserver.run(main)
