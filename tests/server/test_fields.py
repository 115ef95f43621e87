"""The fields JSON of each increment (GET /v1/jobs/{id}/results/increments/{n}), written by the
worker's writer thread after the solver has moved on:
- an increment the job announced (progress increments_completed) is served, even while its file
  may still be written: the handler waits for it instead of answering 404 (the test hook
  DUCTILED_TEST_FIELDS_DELAY_MS makes the writer lag behind the solver);
- a listed increment always has its file, complete and valid JSON (no NaN, no partial file);
- the values are the solver's to the last bit: U and RF equal the VTU's point data, S, E, PEEQ and
  MISES its cell data (element means), and the reactions of the last increment summed over each
  node set equal the summary's."""
import json
import os
import sys
import time

from dtserver import ROOT, attempt_dir, box_job, run, started

sys.path.insert(0, os.path.join(ROOT, "tests", "validation"))
import vlib  # noqa: E402  (the VTU reader)

DELAY_MS = 250
FIELDS = ["U", "RF", "S", "E", "PEEQ", "MISES"]


def strict_json(text):
    """json.loads that refuses NaN and Infinity, which are not JSON."""
    def bad(c):
        raise ValueError("not JSON: " + c)
    return json.loads(text, parse_constant=bad)


def follow(d, jid):
    """Fetch each increment's fields as soon as the job announces it. Returns the documents and
    how many were announced before the increments list showed them (fetched while in flight)."""
    docs, in_flight, seen = {}, 0, 0
    t0 = time.time()
    while True:
        j = d.request("GET", f"/v1/jobs/{jid}").json
        done = j["progress"]["increments_completed"]
        for n in range(seen + 1, done + 1):
            listed = [i["n"] for i in d.request("GET", f"/v1/jobs/{jid}/results/increments").json["items"]]
            r = d.request("GET", f"/v1/jobs/{jid}/results/increments/{n}")
            assert r.status == 200, (n, r)
            docs[n] = r.json
            assert docs[n]["n"] == n, docs[n]["n"]
            in_flight += n not in listed
        seen = done
        if j["state"] != "running" and j["state"] != "queued":
            assert j["state"] == "succeeded", j
            return docs, in_flight
        assert time.time() - t0 < 120, "the job did not finish"
        time.sleep(0.02)


def check_exact(out, items, docs):
    for it in items:
        n = it["n"]
        with open(os.path.join(out, f"fields_{n:04d}.json")) as f:
            doc = strict_json(f.read())
        assert doc == docs[n], n  # what the handler served is the file
        for k in ("step", "increment", "load_factor", "time"):
            assert doc[k] == it[k], (n, k, doc[k], it[k])
        vtu = vlib.read_vtu(os.path.join(out, f"increment_{n:04d}.vtu"))
        for k in ("U", "RF"):
            assert [tuple(r) for r in doc[k]] == vtu["point"][k], (n, k)
        for k in ("S", "E"):
            assert [tuple(r) for r in doc[k]] == vtu["cell"][k], (n, k)
        for k in ("PEEQ", "MISES"):
            assert [(v,) for v in doc[k]] == vtu["cell"][k], (n, k)
        assert len(doc["node_ids"]) == len(doc["U"]) and len(doc["element_ids"]) == len(doc["S"])
    assert max(v for v in docs[items[-1]["n"]]["PEEQ"]) > 0  # plastic: the values are not all zeros


def check_reactions(d, jid, job, doc):
    """summary.json's node-set reactions are sums of RF over the set's nodes in model order (sets
    are stored sorted): the same sums of the JSON's rows, bit for bit, when the JSON holds the
    solver's doubles exactly."""
    s = d.request("GET", f"/v1/jobs/{jid}/results").json
    row = {nid: i for i, nid in enumerate(doc["node_ids"])}
    for name, ids in job["mesh"]["node_sets"].items():
        total = [0.0, 0.0, 0.0]
        for i in sorted(set(row[nid] for nid in ids)):
            for c in range(3):
                total[c] += doc["RF"][i][c]
        assert total == s["node_sets"][name]["RF"], (name, total, s["node_sets"][name]["RF"])


def main(binary):
    with started(binary, {"DUCTILED_TEST_FIELDS_DELAY_MS": str(DELAY_MS)}) as d:
        job = box_job(3, (3, 3))
        job["output"]["fields"] = FIELDS
        jid = d.request("POST", "/v1/jobs", job).json["id"]
        docs, in_flight = follow(d, jid)
        items = d.request("GET", f"/v1/jobs/{jid}/results/increments").json["items"]
        assert [i["n"] for i in items] == list(range(1, 7)) and all(i["vtu"] for i in items), items
        assert sorted(docs) == list(range(1, 7)), sorted(docs)
        # The writer lags DELAY_MS per file behind a solver that needs far less per increment;
        # an increment announced before its row and file existed is still served (in_flight
        # counts them; none when the worker drains the writer before each checkpoint, as it
        # does wherever the backend checkpoints, so that a kept increment has its file).
        out = os.path.join(attempt_dir(d.data_dir, jid, 1), "out")
        assert not [f for f in os.listdir(out) if f.endswith(".tmp")], os.listdir(out)
        check_exact(out, items, docs)
        check_reactions(d, jid, job, docs[6])
        # Not announced: 404 at once, not after a wait.
        t0 = time.time()
        assert d.request("GET", f"/v1/jobs/{jid}/results/increments/7").status == 404
        assert time.time() - t0 < 5
        print(f"{len(items)} increments exact; {in_flight} fetched while in flight")


if __name__ == "__main__":
    run(main)
