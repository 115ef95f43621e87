"""Device groups in `gpus`: "0+1" is one worker whose jobs run split over both devices.

On the CPU backend a group's jobs still run split (one host part per device it names), so the
split run is exercised here without GPUs. With gpus = "0+1" the one worker lists devices
[0, 1] (device 0, its first), a plastic box job's events carry the setup line "split run: 2
METIS parts" and the job succeeds with the box's final u_z at the top (5.272727e-3). With
gpus = "3,1+2" each worker lists its own devices, and a job splits exactly when the group's
worker runs it. Malformed values are refused at start (exit 78) with the setting's origin
and what is wrong: an empty entry, an empty device in a group, a device twice in a group,
more than 16 devices in a group, a negative ordinal; a config file's line is named too.
Needs METIS (the build's partitioner): without it the split run is refused, and the job fails
saying to configure with libmetis-dev, which is checked instead."""
import os
import tempfile

from dtserver import Daemon, box_job, remove_data_dir, run, started

ENV = {"DUCTILED_BACKEND": "cpu"}


def split_lines(d, job_id):
    ev, _ = d.poll_events(job_id)
    texts = [e["data"].get("text", "") for e in ev if e["type"] == "info"]
    worker = [e["data"]["worker"] for e in ev if e["type"] == "job.started"]
    return [t for t in texts if t.startswith("split run:")], worker


def final_uz(d, job_id):
    return d.request("GET", f"/v1/jobs/{job_id}/results").json["increments"][-1]["monitors"]["uz_top"]


def check_config_errors(binary, data):
    bad = {
        "0,": "DUCTILED_GPUS: gpus: an empty entry in \"0,\"",
        ",0": "DUCTILED_GPUS: gpus: an empty entry",
        "0,,1": "DUCTILED_GPUS: gpus: an empty entry",
        "0++1": "DUCTILED_GPUS: gpus: entry \"0++1\" of \"0++1\": expected GPU ordinals 0 to 255",
        "0+": "DUCTILED_GPUS: gpus: entry \"0+\"",
        "0+1+0": "DUCTILED_GPUS: gpus: group \"0+1+0\" names GPU 0 twice",
        "+".join(str(i) for i in range(17)): "has more than 16 devices",
        "0+-1": "expected GPU ordinals 0 to 255",
        "0,x": "entry \"x\"",
    }
    for value, want in bad.items():
        p = Daemon(binary, dict(ENV, DUCTILED_GPUS=value), data_dir=data).cli("token", "list")
        assert p.returncode == 78 and want in p.stderr, (value, p.returncode, p.stderr)
    conf = os.path.join(data, "groups.conf")
    with open(conf, "w") as f:
        f.write("# two groups\ngpus = 0+1,2+2\n")
    p = Daemon(binary, dict(ENV, DUCTILED_CONFIG=conf), data_dir=data).cli("token", "list")
    assert p.returncode == 78 and f"{conf}:2: gpus: group \"2+2\" names GPU 2 twice" in p.stderr, p.stderr
    # Every form that worked before still does: auto, cpu, lists, a shared GPU; 16 in a group.
    for value in ("auto", "cpu", "0", "0,1", "0,0", " 0 , 1 ", "+".join(str(i) for i in range(16))):
        p = Daemon(binary, dict(ENV, DUCTILED_GPUS=value), data_dir=data).cli("token", "list")
        assert p.returncode == 0, (value, p.returncode, p.stderr)


def main(binary):
    data = tempfile.mkdtemp(prefix="ductiled-gpu-groups-")
    metis = os.environ.get("DUCTILE_HAVE_METIS", "1") == "1"
    job = box_job(3, (2, 2))
    try:
        check_config_errors(binary, data)
        with started(binary, dict(ENV, DUCTILED_GPUS="0+1"), data_dir=data) as d:
            h = d.request("GET", "/v1/health").json
            assert [(w["index"], w["device"], w["devices"]) for w in h["workers"]] == [(0, 0, [0, 1])], h
            j = d.request("POST", "/v1/jobs", job).json
            f = d.wait_job(j["id"], timeout=120)
            lines, workers = split_lines(d, j["id"])
            if metis:
                assert f["state"] == "succeeded", f
                assert len(lines) == 1 and lines[0].startswith("split run: 2 METIS parts"), lines
                uz = final_uz(d, j["id"])
                assert abs(uz - 5.272727e-3) <= 1e-6 * 5.272727e-3, uz
            else:
                assert f["state"] == "failed" and "libmetis-dev" in f["error"]["message"], f
        with started(binary, dict(ENV, DUCTILED_GPUS="3,1+2"), data_dir=data) as d:
            h = d.request("GET", "/v1/health").json
            got = [(w["index"], w["device"], w["devices"]) for w in h["workers"]]
            assert got == [(0, 3, [3]), (1, 1, [1, 2])], h["workers"]
            ids = [d.request("POST", "/v1/jobs", job).json["id"] for _ in range(2)]
            for i in ids:
                f = d.wait_job(i, timeout=120)
                lines, workers = split_lines(d, i)
                assert len(workers) == 1, workers
                if workers[0] == 1 and metis:
                    assert f["state"] == "succeeded" and len(lines) == 1, (f, lines)
                    assert lines[0].startswith("split run: 2 METIS parts"), lines
                elif workers[0] == 0:
                    assert f["state"] == "succeeded" and not lines, (f, lines)
    finally:
        remove_data_dir(data)


if __name__ == "__main__":
    run(main)
