// The /v1 API from the browser: same origin, Bearer token from the login form (kept in
// localStorage), the daemon's error envelope turned into ApiError, Server-Sent Events read
// with fetch (EventSource cannot send an Authorization header), downloads as blobs.

const TOKEN_KEY = "ductile.token";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function getToken() {
  return localStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(t) {
  if (t) localStorage.setItem(TOKEN_KEY, t);
  else localStorage.removeItem(TOKEN_KEY);
}

function headers(extra) {
  return { Authorization: `Bearer ${getToken()}`, ...extra };
}

async function failure(r) {
  let code = "http_error";
  let message = `HTTP ${r.status} ${r.statusText}`;
  try {
    const e = (await r.json()).error;
    code = e.code;
    message = e.message;
  } catch {
    /* not the envelope */
  }
  return new ApiError(r.status, code, message);
}

async function send(path, opts = {}) {
  let r;
  try {
    r = await fetch(path, { method: opts.method || "GET", headers: headers(opts.headers), body: opts.body, signal: opts.signal });
  } catch (e) {
    if (e.name === "AbortError") throw e;
    throw new ApiError(0, "unreachable", `cannot reach the server: ${e.message}`);
  }
  if (!r.ok) throw await failure(r);
  return r;
}

export async function api(path, opts = {}) {
  const r = await send(path, opts);
  if (r.status === 204) return null;
  return r.json();
}

export async function text(path, opts = {}) {
  return (await send(path, opts)).text();
}

// The body as an ArrayBuffer (binary files: the VTUs).
export async function bytes(path, opts = {}) {
  return (await send(path, opts)).arrayBuffer();
}

// Save a route's body as a file (the browser's download), with the token.
export async function download(path, filename) {
  const blob = await (await send(path)).blob();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// Follow a job's events from seq > after; calls onEvent(ev) for each, reconnects with
// Last-Event-ID until the terminal event or until signal aborts. Resolves on the end.
export async function followEvents(jobId, after, onEvent, signal) {
  let last = after;
  for (let attempt = 0; !signal.aborted; attempt++) {
    try {
      const r = await send(`/v1/jobs/${jobId}/events`, {
        headers: { Accept: "text/event-stream", ...(last ? { "Last-Event-ID": String(last) } : {}) },
        signal,
      });
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      let data = [];
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).replace(/\r$/, "");
          buf = buf.slice(nl + 1);
          if (line === "") {
            if (data.length) {
              const ev = JSON.parse(data.join("\n"));
              data = [];
              if (ev.seq > last) {
                last = ev.seq;
                onEvent(ev);
                if (/^job\.(succeeded|failed|cancelled)$/.test(ev.type)) return;
              }
            }
          } else if (line.startsWith("data:")) {
            data.push(line.slice(5).replace(/^ /, ""));
          }
        }
      }
      attempt = 0;
    } catch (e) {
      if (signal.aborted || e.name === "AbortError") return;
      if (e instanceof ApiError && e.status >= 400 && e.status < 500) throw e;
    }
    await new Promise((res) => setTimeout(res, Math.min(5000, 500 * (attempt + 1))));
  }
}
