"""Authentication: every /v1 route needs a bearer token; missing, malformed, wrong and revoked
tokens get 401 with the JSON error; the admin token file has mode 0600; token create / list /
revoke from the command line; tokens are stored only as hashes; user and token names that are not
UTF-8 are refused (they go into every job object), UTF-8 ones kept."""
import os
import stat

import dtserver
from dtserver import SPEC, run, started, unit_cube


def main(binary):
    with started(binary) as d:
        mode = stat.S_IMODE(os.stat(os.path.join(d.data_dir, "admin.token")).st_mode)
        assert mode == 0o600, oct(mode)
        assert d.token.startswith("dt_") and len(d.token) == 84
        assert "admin.token" in d.read_log()

        fake = "dt_" + "0" * 16 + "_" + "0" * 64
        wrong = d.token[:-1] + ("0" if d.token[-1] != "0" else "1")
        routes = [(m.upper(), p.replace("{job_id}", "j-0123456789abcdef").replace("{mesh_id}", "m-0123456789abcdef")
                   .replace("{n}", "1")) for p, ops in SPEC["paths"].items() if p.startswith("/v1") for m in ops]
        for method, path in routes:
            for tok in [None, "garbage", fake, wrong, d.token + "x"]:
                r = d.request(method, path, token=tok)
                assert r.status == 401, (path, tok, r)
                assert r.json["error"]["code"] == "unauthorized"
                assert r.headers.get("www-authenticate", "").startswith("Bearer")
        r = d.request("GET", "/v1/health", headers={"Authorization": "Basic YWRtaW46YWRtaW4="}, token=None)
        assert r.status == 401
        r = d.request("POST", "/v1/jobs", {"ductile": 1}, token=None)
        assert r.status == 401

        # CLI: create, use, list, revoke.
        out = d.cli("token", "create", "--name", "ci")
        assert out.returncode == 0, out.stderr
        tok = out.stdout.strip()
        assert d.request("GET", "/v1/health", token=tok).status == 200
        listing = d.cli("token", "list")
        assert listing.returncode == 0 and '"ci"' in listing.stdout and tok[20:] not in listing.stdout
        tid = tok[3:19]
        assert d.cli("token", "revoke", tid).returncode == 0
        r = d.request("GET", "/v1/health", token=tok)
        assert r.status == 401, r
        assert d.cli("token", "revoke", tid).returncode != 0
        assert d.request("GET", "/v1/health").status == 200  # admin still valid

        # Names go into every job and mesh object (owner, owner_token): UTF-8 or refused.
        # "\udce9" is passed to the command line as the byte 0xE9 (Latin-1's e-acute).
        tokens = d.cli("token", "list").stdout
        for args in (("token", "create", "--name", "caf\udce9"), ("token", "create", "--user", "caf\udce9"),
                     ("admin", "user", "add", "caf\udce9")):
            r = d.cli(*args)
            assert r.returncode == 1 and "UTF-8" in r.stderr and not r.stdout, (args, r)
        assert d.cli("token", "list").stdout == tokens and "caf" not in d.cli("admin", "user", "list").stdout
        r = d.cli("token", "create", "--name", "caf\u00e9 \u2713", "--user", "b\u00e9a")
        assert r.returncode == 0, r.stderr
        r = d.request("POST", "/v1/jobs", unit_cube(), token=r.stdout.strip())
        assert r.status == 201 and r.json["owner"] == "b\u00e9a" and r.json["owner_token"] == "caf\u00e9 \u2713", r

        # Only hashes are stored.
        for (h,) in d.sql("SELECT hex(hash) FROM tokens" if dtserver.STORE == "sqlite"
                          else "SELECT encode(hash, 'hex') FROM tokens"):
            assert len(h) == 64 and d.token.encode().hex() not in h.lower()
        dump = "\n".join("|".join(map(str, r)) for t in ("users", "tokens", "audit")
                         for r in d.sql(f"SELECT * FROM {t}"))
        assert d.token not in dump and tok not in dump


if __name__ == "__main__":
    run(main)
