"""Exceptions of the ductile client. Every error of the daemon is a :class:`DuctileError` with
the HTTP status and the daemon's ``{"error": {"code", "message", "details"}}``."""
from __future__ import annotations

from typing import Any, Dict, Optional


class DuctileError(Exception):
    """An error answered by the daemon (or raised on its behalf)."""

    #: exit code the ``ductile`` CLI uses for this kind of error
    exit_code: int = 7

    def __init__(self, message: str, *, status: int = 0, code: str = "error",
                 details: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.details = details

    def __str__(self) -> str:
        if self.status:
            return f"{self.message} (HTTP {self.status} {self.code})"
        return self.message


class ConnectionFailed(DuctileError):
    """The server cannot be reached: not running, wrong URL, refused, timed out."""
    exit_code = 3


class AuthError(DuctileError):
    """401: no token, or a wrong or revoked one."""
    exit_code = 4


class NotFound(DuctileError):
    """404: unknown job, mesh or increment (or an id that is not well-formed)."""
    exit_code = 5


class Rejected(DuctileError):
    """400, 405, 409, 413, 415, 422, 429: the request was refused (invalid job, job finished, ...)."""
    exit_code = 6


class ServerError(DuctileError):
    """5xx, or an answer the client does not understand."""
    exit_code = 7


class JobFailed(DuctileError):
    """Raised by :meth:`Client.wait` with ``check=True`` when the job did not succeed."""
    exit_code = 1

    def __init__(self, job: Dict[str, Any]) -> None:
        err = job.get("error") or {}
        msg = f"job {job.get('id')} {job.get('state')}"
        if err:
            msg += f": {err.get('code')}: {err.get('message')}"
        super().__init__(msg, code=str(job.get("state")))
        self.job = job


def from_status(status: int) -> "type[DuctileError]":
    """The exception class for an HTTP status."""
    if status == 401:
        return AuthError
    if status == 404:
        return NotFound
    if 400 <= status < 500:
        return Rejected
    return ServerError
