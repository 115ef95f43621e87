"""Python client of ductiled, the ductile elastoplastic FEM service (standard library only).

    from ductile_client import Client
    c = Client()                                   # DUCTILE_URL / DUCTILE_TOKEN / local admin.token
    job = c.submit("examples/unit_cube.json")
    final = c.wait(job["id"], on_event=lambda e: print(e["type"]))
    c.history(job["id"])["uz_top"]

See docs/clients.md for the whole API and docs/clients_example.py for a worked example.
"""
from .client import TERMINAL, Client
from .errors import (AuthError, ConnectionFailed, DuctileError, JobFailed, NotFound, Rejected,
                     ServerError)

__version__ = "0.1.0"
__all__ = ["Client", "DuctileError", "ConnectionFailed", "AuthError", "NotFound", "Rejected",
           "ServerError", "JobFailed", "TERMINAL", "__version__"]
