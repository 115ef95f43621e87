"""What every suite runner shares: the host's description and its file-name slug, the git
commit, running a child with a time limit while recording its wall time, peak memory and the
moments new rows appear in a progress file, and writing the result JSON (bench/README.md has
the schema). Python 3 standard library only.
"""
import datetime
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = "ductile-bench/1"


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gpus():
    """[(name, memory MiB, driver)] from nvidia-smi, [] without one."""
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                              "--format=csv,noheader,nounits"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    rows = []
    for line in out.strip().splitlines():
        p = [v.strip() for v in line.split(",")]
        if len(p) == 3:
            rows.append({"name": p[0], "memory_mib": int(float(p[1])), "driver": p[2]})
    return rows


def host():
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    g = gpus()
    cpu = cpu_model()
    device = g[0]["name"] if g else cpu
    return {"hostname": platform.node(), "cpu": cpu, "cores": cores, "memory_gb": round(mem / 1e9, 1),
            "gpus": g, "os": platform.platform(),
            "device_slug": slug(device) + ("" if g else "-%dc" % cores)}


def git_info():
    def git(*args):
        try:
            return subprocess.run(["git", "-C", ROOT] + list(args), stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": git("rev-parse", "HEAD") or None,
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def run_child(cmd, cwd, log, env=None, limit=600.0, watch=None):
    """Run cmd (its own process group) with stdout+stderr to the file `log`, at most `limit`
    seconds (then the group is killed). Returns {"rc", "timed_out", "wall_seconds",
    "peak_rss_mb" (the child's, and of the descendants it waited for), "watch_times": seconds at
    which the file `watch` had gained each of its lines}."""
    t0 = time.monotonic()
    with open(log, "w") as out:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    seen, times, timed_out, status, ru = 0, [], False, None, None
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        now = time.monotonic() - t0
        if watch:
            try:
                with open(watch, "rb") as f:
                    n = f.read().count(b"\n")
                times += [round(now, 3)] * max(0, n - seen)
                seen = max(seen, n)
            except OSError:
                pass
        if pid:
            break
        if now > limit and not timed_out:
            timed_out = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1 if now < 10 else 0.5)
    p.returncode = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
    return {"rc": p.returncode, "timed_out": timed_out, "wall_seconds": round(time.monotonic() - t0, 3),
            "peak_rss_mb": round(ru.ru_maxrss / 1024.0, 1), "watch_times": times}


_GIT = []


def started_git():
    """git_info() of the first call: the tree when the run started (the repository's HEAD may
    move while a long run goes on; the binaries were built before it)."""
    if not _GIT:
        _GIT.append(git_info())
    return _GIT[0]


def tool_version(cmd, pattern=None):
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    if pattern:
        m = re.search(pattern, out)
        return m.group(1) if m else None
    return out.strip().splitlines()[-1] if out.strip() else None


def result_path(h, when, suite):
    return os.path.join(ROOT, "bench", "results", "%s-%s-%s.json" % (h["device_slug"], suite,
                                                                      when.strftime("%Y-%m-%dT%H%M%SZ")))


def write_result(path, suite, args, runs, h, started, extra=None):
    rec = {"schema": SCHEMA, "suite": suite, "started": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
           "finished": utc_now().strftime("%Y-%m-%dT%H:%M:%SZ"), "host": h, "git": started_git(),
           "command": args, "runs": runs}
    if extra:
        rec.update(extra)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    return path
