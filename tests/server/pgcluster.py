"""A throwaway PostgreSQL server for the daemon tests, started for real and stopped at the end.

    python3 pgcluster.py start INFO   initdb a cluster in a new temporary directory, start it on a
                                      free loopback port, write {dir, port, user, bin} to INFO
    python3 pgcluster.py stop INFO    stop it (fast shutdown) and remove its directory

server_down(info) and server_up(info) stop (fast shutdown) and start the server of a cluster
again, keeping its data and port: test_outage.py's PostgreSQL restart, on a cluster of its own.

PostgreSQL refuses to run as root (CI runs as root): then initdb and postgres run as the
unprivileged user `postgres` (Debian's package creates it), else `nobody`, through runuser. The
cluster has no locale (C collation: the store's ISO timestamps compare as text byte by byte),
trust authentication on loopback only, and fsync off (a test's data need not survive a power
cut). Tests make one database each (createdb, below); tests/server/dtserver.py points its
daemons at them when DUCTILE_TEST_PG names an INFO file."""
import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def pg_bin():
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    found = shutil.which("initdb")
    return os.path.dirname(found) if found else None


def run_as():
    """The user to run the server as (None: this one)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            pass
    raise RuntimeError("running as root and neither user postgres nor nobody exists")


def as_user(user, argv):
    return ["runuser", "-u", user, "--"] + argv if user else argv


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(info_path):
    bindir = pg_bin()
    if not bindir:
        raise RuntimeError("initdb not found: install PostgreSQL (Debian: postgresql)")
    user = run_as()
    top = tempfile.mkdtemp(prefix="ductile-pg-")
    os.chmod(top, 0o755)
    data = os.path.join(top, "data")
    os.mkdir(data, 0o700)
    if user:
        pw = pwd.getpwnam(user)
        os.chown(top, pw.pw_uid, pw.pw_gid)
        os.chown(data, pw.pw_uid, pw.pw_gid)
    subprocess.run(as_user(user, [os.path.join(bindir, "initdb"), "-D", data, "-U", "ductile",
                                  "--no-locale", "-E", "UTF8", "--auth=trust", "--no-sync"]),
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=top)
    port = free_port()
    with open(os.path.join(data, "postgresql.auto.conf"), "a") as f:
        f.write(f"listen_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{top}'\n"
                "max_connections = 400\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                "shared_buffers = 64MB\n")
    log = os.path.join(top, "server.log")
    subprocess.run(as_user(user, [os.path.join(bindir, "pg_ctl"), "-D", data, "-l", log, "-w", "-t", "60",
                                  "start"]), check=True, stdout=subprocess.DEVNULL, cwd=top)
    info = {"dir": top, "data": data, "port": port, "user": "ductile", "bin": bindir, "run_as": user}
    with open(info_path, "w") as f:
        json.dump(info, f)
    return info


def stop(info_path):
    try:
        with open(info_path) as f:
            info = json.load(f)
    except OSError:
        return
    subprocess.run(as_user(info["run_as"], [os.path.join(info["bin"], "pg_ctl"), "-D", info["data"], "-m", "fast",
                                            "-w", "stop"]), stdout=subprocess.DEVNULL, cwd=info["dir"])
    shutil.rmtree(info["dir"], ignore_errors=True)
    os.unlink(info_path)


def pg_ctl(info, *args):
    return subprocess.run(as_user(info["run_as"], [os.path.join(info["bin"], "pg_ctl"), "-D", info["data"], *args]),
                          stdout=subprocess.DEVNULL, cwd=info["dir"], check=True)


def server_down(info):
    """Fast shutdown (what an operator's restart or a failover does): every session ends at once;
    returns when the server has stopped."""
    pg_ctl(info, "-m", "fast", "-w", "stop")


def server_up(info):
    """Start the stopped server again on its port; returns once it accepts connections."""
    pg_ctl(info, "-l", os.path.join(info["dir"], "server.log"), "-w", "-t", "60", "start")


def load(info_path):
    with open(info_path) as f:
        return json.load(f)


def url(info, db):
    return f"postgresql://{info['user']}@127.0.0.1:{info['port']}/{db}"


def psql(info, db, sql):
    """Run sql on database db; its output rows, fields separated by '|'."""
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url(info, db), "-c", sql],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"psql: {sql}: {r.stderr}")
    return [line.split("|") for line in r.stdout.splitlines() if line]


def createdb(info, db):
    """A new database db, unless it exists."""
    for _ in range(50):
        try:
            if not psql(info, "postgres", f"SELECT 1 FROM pg_database WHERE datname = '{db}'"):
                psql(info, "postgres", f'CREATE DATABASE "{db}"')
            return url(info, db)
        except RuntimeError as e:  # two tests creating at once: "source database is being accessed"
            last = e
            time.sleep(0.1)
    raise last


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit("usage: pgcluster.py start|stop INFO")
    if sys.argv[1] == "start":
        stop(sys.argv[2])  # a cluster a failed run left behind
        print(json.dumps(start(sys.argv[2])))
    else:
        stop(sys.argv[2])
