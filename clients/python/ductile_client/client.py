"""The ductiled client: meshes, jobs, events and results over the /v1 API (docs/api.md).

Only the standard library is used; when numpy is importable, numeric results (fields, history
columns) come back as arrays, otherwise as plain lists (``Client(numpy=False)`` forces lists).
"""
from __future__ import annotations

import http.client
import json
import os
import time
import urllib.parse
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from . import _config
from .errors import ConnectionFailed, DuctileError, JobFailed, ServerError, from_status

try:  # optional
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the machine
    _np = None

JSON = Dict[str, Any]
PathLike = Union[str, "os.PathLike[str]"]
TERMINAL = ("succeeded", "failed", "cancelled")
TERMINAL_EVENTS = ("job.succeeded", "job.failed", "job.cancelled")


class Client:
    """A connection to one ductiled.

    >>> c = Client()                              # URL and token as the CLI finds them
    >>> job = c.submit("examples/unit_cube.json")
    >>> for ev in c.events(job["id"]): print(ev["type"])
    >>> c.fields(job["id"], 1)["U"]               # numpy array when numpy is installed

    Args:
        url: server base URL (default: ``DUCTILE_URL``, the config file, ``http://127.0.0.1:8080``).
        token: bearer token (default: ``DUCTILE_TOKEN``, the config file, a local admin.token).
        token_file: read the token from this file.
        config: client config file (``key = value``: ``url``, ``token``, ``token_file``).
        timeout: seconds for each ordinary request (event streams wait as long as they need).
        numpy: ``True``/``False`` to force arrays or lists; ``None`` uses numpy when present.
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, *,
                 token_file: Optional[str] = None, config: Optional[str] = None,
                 timeout: float = 60.0, numpy: Optional[bool] = None) -> None:
        self.settings = _config.resolve(url, token, token_file=token_file, config=config)
        parts = urllib.parse.urlsplit(self.settings.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {self.settings.url}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self.timeout = timeout
        if numpy and _np is None:
            raise ImportError("numpy=True but numpy is not installed")
        self.numpy = (_np is not None) if numpy is None else bool(numpy)

    @property
    def url(self) -> str:
        """The server's base URL."""
        return self.settings.url

    # ---------------------------------------------------------------- transport

    def _conn(self, timeout: Optional[float]) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return cls(self._host, self._port, timeout=timeout)

    def _headers(self, extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
        h = {"User-Agent": "ductile-python/0.1"}
        if self.settings.token:
            h["Authorization"] = "Bearer " + self.settings.token
        h.update(extra or {})
        return h

    def _unreachable(self, e: BaseException) -> ConnectionFailed:
        why = getattr(e, "strerror", None) or str(e) or type(e).__name__
        return ConnectionFailed(f"cannot reach the server at {self.url} (url from {self.settings.url_from}): {why}")

    def _error(self, status: int, body: bytes, what: str) -> DuctileError:
        code, message, details = "http_error", body[:200].decode("utf-8", "replace"), None
        try:
            err = json.loads(body)["error"]
            code, message, details = err["code"], err["message"], err.get("details")
        except (ValueError, KeyError, TypeError):
            pass
        if status == 401:
            message += (f"; the token (from {self.settings.token_from}) was refused" if self.settings.token
                        else "; no token: pass token=, set DUCTILE_TOKEN, or run on the daemon's machine")
        return from_status(status)(f"{what}: {message}", status=status, code=code, details=details)

    def request(self, method: str, path: str, body: Optional[bytes] = None, *,
                content_type: Optional[str] = None, what: str = "request") -> "tuple[int, Dict[str, str], bytes]":
        """One request; returns (status, headers, body) for 2xx, raises DuctileError otherwise."""
        headers = self._headers({"Content-Type": content_type} if content_type else None)
        conn = self._conn(self.timeout)
        try:
            conn.request(method, self._prefix + path, body=body, headers=headers)
            r = conn.getresponse()
            data = r.read()
            hdrs = {k.lower(): v for k, v in r.getheaders()}
        except (OSError, http.client.HTTPException) as e:
            raise self._unreachable(e) from None
        finally:
            conn.close()
        if not 200 <= r.status < 300:
            raise self._error(r.status, data, what)
        return r.status, hdrs, data

    def _json(self, method: str, path: str, body: Any = None, *, what: str, raw: Optional[bytes] = None,
              content_type: Optional[str] = None) -> Any:
        if body is not None:
            raw, content_type = json.dumps(body).encode(), "application/json"
        _, _, data = self.request(method, path, raw, content_type=content_type, what=what)
        if not data:
            return None
        try:
            return json.loads(data)
        except ValueError:
            raise ServerError(f"{what}: the server's answer is not JSON: {data[:100]!r}") from None

    def _pages(self, path: str, what: str, **query: Any) -> List[JSON]:
        items: List[JSON] = []
        q = {k: v for k, v in query.items() if v is not None}
        while True:
            page = self._json("GET", path + "?" + urllib.parse.urlencode(q), what=what)
            items += page["items"]
            if not page.get("next_cursor"):
                return items
            q["cursor"] = page["next_cursor"]

    def _arr(self, v: Any) -> Any:
        return _np.asarray(v, dtype=float) if self.numpy and v is not None else v

    # ---------------------------------------------------------------- system

    def health(self) -> JSON:
        """``GET /v1/health``: status, version, queue, workers, devices."""
        return self._json("GET", "/v1/health", what="health")

    # ---------------------------------------------------------------- meshes

    def upload_mesh(self, mesh: Union[JSON, PathLike], name: Optional[str] = None) -> JSON:
        """Upload a mesh: a mesh object (dict), a job dict (its ``mesh``), or a file (.json mesh
        or job, .msh Gmsh mesh sent as ``application/x-gmsh-msh``). Returns the Mesh document."""
        raw, ctype = None, "application/json"
        if isinstance(mesh, dict):
            body: Any = mesh.get("mesh", mesh)
        else:
            p = Path(mesh)
            name = name or p.name
            if p.suffix == ".msh":
                raw, ctype, body = p.read_bytes(), "application/x-gmsh-msh", None
            else:
                doc = json.loads(p.read_text(encoding="utf-8"))
                body = doc.get("mesh", doc)
        q = "?" + urllib.parse.urlencode({"name": name}) if name else ""
        return self._json("POST", "/v1/meshes" + q, body, raw=raw, content_type=ctype, what="mesh upload")

    def meshes(self) -> List[JSON]:
        """All meshes, newest first."""
        return self._pages("/v1/meshes", "mesh list", limit=1000)

    def mesh(self, mesh_id: str) -> JSON:
        """One mesh's metadata."""
        return self._json("GET", f"/v1/meshes/{_seg(mesh_id)}", what="mesh")

    def delete_mesh(self, mesh_id: str) -> None:
        """Delete a mesh (Rejected ``mesh_in_use`` while a queued or running job uses it)."""
        self.request("DELETE", f"/v1/meshes/{_seg(mesh_id)}", what="mesh delete")

    # ---------------------------------------------------------------- jobs

    def submit(self, job: Union[JSON, PathLike], *, mesh: Union[None, str, JSON, PathLike] = None) -> JSON:
        """Submit a job; returns the Job document (state ``queued``, or ``running`` when a free
        worker took it at once).

        Args:
            job: a job dict, or a file: ``.json`` job, or ``.inp`` Abaqus/CalculiX deck (sent as
                ``application/x-abaqus-inp``; the daemon imports it and answers 422 with the line of
                the first problem; ``*INCLUDE`` is refused in uploads).
            mesh: optional mesh for the job: an id ``m-…``, a mesh dict, or a mesh file (.json,
                .msh); it is uploaded first and the job gets its ``mesh_id``.
        """
        raw, ctype, body = None, "application/json", None
        if isinstance(job, dict):
            body = dict(job)
        else:
            p = Path(job)
            if p.suffix == ".inp":
                if mesh is not None:
                    raise ValueError("an Abaqus deck is a whole job: mesh= is not used with it")
                raw, ctype = p.read_bytes(), "application/x-abaqus-inp"
            else:
                body = json.loads(p.read_text(encoding="utf-8"))
        if mesh is not None:
            mesh_id = mesh if isinstance(mesh, str) and mesh.startswith("m-") else self.upload_mesh(mesh)["id"]
            body.pop("mesh", None)
            body["mesh_id"] = mesh_id
        return self._json("POST", "/v1/jobs", body, raw=raw, content_type=ctype, what="submit")

    def jobs(self, state: Union[None, str, Sequence[str]] = None, mesh_id: Optional[str] = None) -> List[JSON]:
        """Jobs, newest first; ``state`` filters (``"running"`` or ``["queued", "running"]``)."""
        if state is not None and not isinstance(state, str):
            state = ",".join(state)
        return self._pages("/v1/jobs", "job list", state=state, mesh_id=mesh_id, limit=1000)

    def job(self, job_id: str) -> JSON:
        """One job: state, progress, timings, error."""
        return self._json("GET", f"/v1/jobs/{_seg(job_id)}", what="job")

    def cancel(self, job_id: str) -> JSON:
        """Cancel a queued or running job (Rejected ``job_finished`` when it has ended)."""
        return self._json("POST", f"/v1/jobs/{_seg(job_id)}/cancel", what="cancel")

    def delete_job(self, job_id: str) -> None:
        """Remove a finished job with its events and files."""
        self.request("DELETE", f"/v1/jobs/{_seg(job_id)}", what="delete")

    # ---------------------------------------------------------------- events

    def events(self, job_id: str, *, after: int = 0, follow: bool = True,
               reconnect: int = 5) -> Iterator[JSON]:
        """The job's events ``{seq, time, type, data}`` from ``seq > after``.

        With ``follow`` (default) this reads the Server-Sent Events stream until the terminal
        event (``job.succeeded``, ``job.failed``, ``job.cancelled``), reconnecting with
        ``Last-Event-ID`` when the stream breaks (nothing is missed or repeated). Without
        ``follow`` it returns the events stored so far (polling route)."""
        last = after
        if not follow:
            while True:
                page = self._json("GET", f"/v1/jobs/{_seg(job_id)}/events?after={last}&limit=1000", what="events")
                yield from page["events"]
                if not page["events"]:
                    return
                last = page["next_after"]
        failures = 0
        while True:
            try:
                for ev in self._sse(job_id, last):
                    last = ev["seq"]
                    failures = 0
                    yield ev
                    if ev["type"] in TERMINAL_EVENTS:
                        return
            except ConnectionFailed:
                failures += 1
                if failures > reconnect:
                    raise
            if self.job(job_id)["state"] in TERMINAL:
                # the stream ended after the terminal event we may not have seen yet
                for ev in self.events(job_id, after=last, follow=False):
                    yield ev
                return
            time.sleep(min(2.0, 0.2 * (failures + 1)))

    def _sse(self, job_id: str, last: int) -> Iterator[JSON]:
        h = self._headers({"Accept": "text/event-stream"})
        if last:
            h["Last-Event-ID"] = str(last)
        conn = self._conn(None)
        try:
            try:
                conn.request("GET", f"{self._prefix}/v1/jobs/{_seg(job_id)}/events", headers=h)
                r = conn.getresponse()
            except (OSError, http.client.HTTPException) as e:
                raise self._unreachable(e) from None
            if r.status != 200:
                raise self._error(r.status, r.read(), "event stream")
            data: List[str] = []
            try:
                for raw in r:
                    line = raw.decode("utf-8").rstrip("\r\n")
                    if not line:
                        if data:
                            yield json.loads("\n".join(data))
                        data = []
                    elif line.startswith("data:"):
                        v = line[5:]
                        data.append(v[1:] if v.startswith(" ") else v)
            except (OSError, http.client.HTTPException) as e:
                raise self._unreachable(e) from None
        finally:
            conn.close()

    def wait(self, job_id: str, *, timeout: Optional[float] = None, check: bool = False,
             on_event: Optional[Any] = None) -> JSON:
        """Follow the events until the job ends; returns the final Job document.

        Args:
            timeout: seconds before TimeoutError (None: no limit).
            check: raise :class:`JobFailed` unless the job succeeded.
            on_event: called with each event (e.g. to print progress).
        """
        t0 = time.monotonic()
        for ev in self.events(job_id):
            if on_event is not None:
                on_event(ev)
            if timeout is not None and time.monotonic() - t0 > timeout:
                raise TimeoutError(f"job {job_id} did not end within {timeout} s")
        job = self.job(job_id)
        if check and job["state"] != "succeeded":
            raise JobFailed(job)
        return job

    # ---------------------------------------------------------------- results

    def summary(self, job_id: str) -> JSON:
        """The solver's summary.json (per-increment history, monitors, timings); Rejected
        ``not_ready`` until the job has ended."""
        return self._json("GET", f"/v1/jobs/{_seg(job_id)}/results", what="results")

    def history_csv(self, job_id: str) -> str:
        """history.csv as text (grows while the job runs)."""
        return self.request("GET", f"/v1/jobs/{_seg(job_id)}/results/history.csv", what="history.csv")[2].decode()

    def history(self, job_id: str) -> Dict[str, Any]:
        """history.csv as columns: ``{"step": [...], "load_factor": [...], "uz_top": [...]}``
        (numpy arrays when numpy is used)."""
        lines = [ln for ln in self.history_csv(job_id).splitlines() if ln.strip()]
        if not lines:
            return {}
        names = lines[0].split(",")
        cols: Dict[str, List[float]] = {n: [] for n in names}
        for ln in lines[1:]:
            for n, v in zip(names, ln.split(",")):
                cols[n].append(float(v) if v else float("nan"))
        return {n: self._arr(v) for n, v in cols.items()}

    def increments(self, job_id: str) -> List[JSON]:
        """Converged increments with results: ``[{n, step, increment, load_factor, time, vtu}]``."""
        return self._json("GET", f"/v1/jobs/{_seg(job_id)}/results/increments", what="increments")["items"]

    def fields(self, job_id: str, n: int, fields: Optional[Sequence[str]] = None) -> JSON:
        """Fields of converged increment ``n`` (1, 2, …): ``node_ids``, ``element_ids``, nodal
        ``U``/``RF`` (n×3), element means of ``S``/``E`` (n×6 Voigt), ``PEEQ``, ``MISES``;
        ``None`` for fields the job did not output. Arrays when numpy is used."""
        q = "?" + urllib.parse.urlencode({"fields": ",".join(fields)}) if fields else ""
        doc = self._json("GET", f"/v1/jobs/{_seg(job_id)}/results/increments/{int(n)}{q}", what="fields")
        for k in ("U", "RF", "S", "E", "PEEQ", "MISES"):
            if k in doc:
                doc[k] = self._arr(doc[k])
        return doc

    def download_vtu(self, job_id: str, directory: PathLike, n: Optional[int] = None) -> List[Path]:
        """Write increment VTUs (all, or only ``n``) into ``directory``; returns the paths."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        out = []
        for it in self.increments(job_id):
            if it.get("vtu") is None or (n is not None and it["n"] != n):
                continue
            data = self.request("GET", f"/v1/jobs/{_seg(job_id)}/results/increments/{it['n']}/vtu", what="VTU")[2]
            p = d / f"increment_{it['n']:04d}.vtu"
            p.write_bytes(data)
            out.append(p)
        return out


def _seg(s: str) -> str:
    """A path segment, quoted so that an id can never leave its route."""
    return urllib.parse.quote(str(s), safe="")
