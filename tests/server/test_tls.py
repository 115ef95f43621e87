"""HTTPS (tls_cert, tls_key; server/tls.h) with a self-signed certificate made by the openssl
command:

- a certificate or key the daemon cannot use stops it before it listens, with exit status 78 and
  a message naming the key and the file: a key of another certificate (GnuTLS's "do not
  match"), a missing file, a directory, a certificate file without a certificate, a key file
  without a key, an encrypted key, one of the two keys without the other;
- with a good pair the daemon says scheme=https, and a client trusting that certificate (and
  only it) gets health, a job submitted, its event stream to the end, a result file and error
  envelopes, those of the daemon and those of libmicrohttpd (505), all over TLS;
- a client that does not trust the certificate fails the handshake, and plain HTTP on the same
  port gets no HTTP reply at all;
- a renewed certificate (the files replaced) is served after a restart in place (SIGUSR1),
  which keeps the daemon's process."""
import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile

from dtserver import Daemon, run, started, unit_cube


def make_cert(tmp, name):
    """A self-signed P-256 certificate for 127.0.0.1 and its unencrypted key: (cert, key)."""
    cert, key = os.path.join(tmp, name + ".crt"), os.path.join(tmp, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=" + name,
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    os.chmod(key, 0o600)
    return cert, key


def refused(binary, tmp, cert, key, expect):
    """The daemon exits 78 before it listens, saying expect."""
    env = {}
    if cert:
        env["DUCTILED_TLS_CERT"] = cert
    if key:
        env["DUCTILED_TLS_KEY"] = key
    d = Daemon(binary, env, data_dir=os.path.join(tmp, "refused"))
    p = subprocess.run([binary], env=d.env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 78, (env, p.returncode, p.stderr)
    assert expect in p.stderr, (env, expect, p.stderr)
    assert "listening" not in p.stderr, p.stderr
    print(f"refused ({expect}): {p.stderr.strip().splitlines()[-1]}")


def tls_raw(d, request, ctx):
    """Send request bytes on a TLS connection; everything read until the server closes."""
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", d.port), timeout=10),
                         server_hostname="127.0.0.1") as s:
        s.sendall(request)
        out = b""
        while True:
            b = s.recv(65536)
            if not b:
                return out
            out += b


def plain_http_refused(d):
    """Plain HTTP on the HTTPS port: no HTTP reply, neither through http.client nor raw."""
    c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
    try:
        c.request("GET", "/metrics")
        r = c.getresponse()
        raise AssertionError(f"plain HTTP answered {r.status}")
    except (http.client.RemoteDisconnected, http.client.BadStatusLine, ConnectionResetError,
            BrokenPipeError) as e:
        print("plain HTTP on the HTTPS port:", type(e).__name__, e)
    finally:
        c.close()
    with socket.create_connection(("127.0.0.1", d.port), timeout=10) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        try:
            got = s.recv(4096)
        except ConnectionResetError:
            got = b""
        assert not got.startswith(b"HTTP/"), got


def session(d, cert):
    h = d.request("GET", "/v1/health")
    assert h.status == 200 and h.json["status"] == "ok", h
    assert "scheme=https" in d.read_log(), d.read_log()
    r = d.request("POST", "/v1/jobs", unit_cube())
    assert r.status == 201, r
    jid = r.json["id"]
    events = d.sse(jid, timeout=120)
    assert events[-1][1] == "job.succeeded", events[-3:]
    csv = d.request("GET", f"/v1/jobs/{jid}/results/history.csv")
    assert csv.status == 200 and csv.body.count(b"\n") >= 4, csv
    nf = d.request("GET", "/v1/jobs/j-0123456789abcdef")
    assert nf.status == 404 and nf.json["error"]["code"] == "not_found", nf
    ctx = ssl.create_default_context(cafile=cert)
    got = tls_raw(d, b"GET /metrics HTTP/2.0\r\nHost: localhost\r\n\r\n", ctx)
    assert got.startswith(b"HTTP/1.1 505 ") and b'"code":"http_version_not_supported"' in got, got
    print(f"over HTTPS: health, job {jid} ({len(events)} events streamed), history.csv, 404, 505")
    try:
        tls_raw(d, b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", ssl.create_default_context())
        raise AssertionError("a client that does not trust the certificate connected")
    except ssl.SSLCertVerificationError as e:
        print("untrusted certificate:", e.verify_message)
    plain_http_refused(d)


def renewal(d, tmp, cert, key):
    """Replace the certificate and key, restart in place: the new certificate is served."""
    new_cert, new_key = make_cert(tmp, "renewed")
    shutil.copyfile(new_cert, cert)
    shutil.copyfile(new_key, key)
    listening, pid = d.listening_count(), d.proc.pid
    d.tls_ca = new_cert  # from now on the harness trusts the new certificate only
    d.proc.send_signal(signal.SIGUSR1)
    d.wait_restarted(listening)
    assert d.proc.pid == pid and d.proc.poll() is None
    der = tls_peer_cert(d, ssl.create_default_context(cafile=new_cert))
    assert der == ssl.PEM_cert_to_DER_cert(open(new_cert).read()), "the old certificate is served"
    print("renewed certificate served after SIGUSR1")


def tls_peer_cert(d, ctx):
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", d.port), timeout=10),
                         server_hostname="127.0.0.1") as s:
        return s.getpeercert(binary_form=True)


def main(binary):
    tmp = tempfile.mkdtemp(prefix="ductiled-tls-")
    try:
        cert, key = make_cert(tmp, "server")
        other_cert, other_key = make_cert(tmp, "other")
        enc_key = os.path.join(tmp, "encrypted.key")
        subprocess.run(["openssl", "pkey", "-in", key, "-aes256", "-passout", "pass:secret", "-out", enc_key],
                       check=True, capture_output=True)
        refused(binary, tmp, cert, other_key, "do not match")
        refused(binary, tmp, cert, os.path.join(tmp, "missing.key"), "tls_key: cannot read")
        refused(binary, tmp, tmp, key, "tls_cert: '%s' is not a regular file" % tmp)
        refused(binary, tmp, key, key, "holds no PEM certificate")
        refused(binary, tmp, cert, cert, "holds no PEM private key")
        refused(binary, tmp, cert, enc_key, "encrypted private key")
        refused(binary, tmp, cert, None, "tls_cert is set but tls_key is not")
        refused(binary, tmp, None, key, "tls_key is set but tls_cert is not")
        # The daemon keeps its own copies: the test replaces them to renew the certificate.
        live_cert, live_key = os.path.join(tmp, "live.crt"), os.path.join(tmp, "live.key")
        shutil.copyfile(cert, live_cert)
        shutil.copyfile(key, live_key)
        os.chmod(live_key, 0o600)
        env = {"DUCTILED_TLS_CERT": live_cert, "DUCTILED_TLS_KEY": live_key}
        with started(binary, env, tls_ca=cert) as d:
            session(d, cert)
            renewal(d, tmp, live_cert, live_key)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    run(main)
