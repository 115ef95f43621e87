"""Worked example of the Python client (notebook style: run it cell by cell, or whole).

    PYTHONPATH=clients/python python3 docs/clients_example.py [JOB.json]

It talks to the ductiled at DUCTILE_URL (default http://127.0.0.1:8080) with DUCTILE_TOKEN
(or the daemon's admin.token when it runs on this machine), e.g. after
`bash scripts/run-example.sh`. The test tests/clients/test_python_client.py runs it too."""
# %% Connect
import sys

from ductile_client import Client, DuctileError

client = Client()
health = client.health()
print(f"connected to {client.url}: ductiled {health['version']}, backend {health['backend_selected']}")

# %% Submit a job (a file or a dict; .inp decks and .msh meshes + a job work the same way)
job_file = sys.argv[1] if len(sys.argv) > 1 else "examples/unit_cube.json"
job = client.submit(job_file)
print("submitted", job["id"], "state", job["state"])

# %% Follow the events live: one line per converged increment
def show(ev):
    d = ev["data"]
    if ev["type"] == "increment.converged":
        print(f"  increment {d['n']:3d}  step {d['step']}  {d['newton_iterations']} Newton iterations  "
              f"residual {d['residual']:.2e}  {d['percent']:5.1f}%")
    elif ev["type"].startswith("job."):
        print(" ", ev["type"], d.get("message", ""))

final = client.wait(job["id"], on_event=show)
print("final state:", final["state"], "in", round(final["timings"]["run_seconds"], 3), "s")

# %% Results: the history as columns (numpy arrays when numpy is installed)
hist = client.history(job["id"])
monitors = [k for k in hist if k not in ("step", "increment", "time", "load_factor", "newton_iterations",
                                         "pcg_iterations", "residual", "cutbacks", "plastic_points")]
for m in monitors:
    print(f"{m}: final {hist[m][-1]:.6e}")

# %% Fields of the last increment: nodal displacement, element von Mises / PEEQ
last = client.increments(job["id"])[-1]
f = client.fields(job["id"], last["n"])
umax = max(sum(c * c for c in u) ** 0.5 for u in f["U"])
print(f"increment {last['n']}: max |U| = {umax:.4e}", end="")
if f.get("MISES") is not None:
    print(f", max von Mises = {max(f['MISES']):.1f}", end="")
if f.get("PEEQ") is not None:
    print(f", max PEEQ = {max(f['PEEQ']):.3e}", end="")
print()

# %% Errors are exceptions with the daemon's code and message
try:
    client.job("j-0000000000000000")
except DuctileError as e:
    print("as expected:", type(e).__name__, e.code, "-", e.message)
